/* SPDX-License-Identifier: GPL-2.0 */
/* The VMA of a user address, found by the native walker itself in the current task's
 * memory map, so a process nobody has described yet unwinds as soon as its files' tables
 * exist. The walker reads the tree the kernel keeps as a lock-free reader would: the
 * maple tree (6.1 on), whose nodes are freed only after an RCU grace period (a BPF
 * program runs inside an RCU read section), and before 6.1 the red-black tree, which a
 * concurrent change can send astray: every read is bpf_probe_read_kernel, which cannot
 * fault, the VMA found must hold the address, and a wrong answer costs one frame.
 *
 * Not bpf_find_vma (5.17): from an interrupt (a CPU sample; sched_switch runs with
 * interrupts off too) it works once until the interrupt returns, since it leaves the
 * mmap lock's release to a per-CPU irq_work that must run first, so only a stack's
 * first frame would find its VMA; and it gives up whenever another thread holds or
 * waits for the lock (a trylock), which is most of a process's start, when it maps its
 * libraries. The kernel's tree layouts used here are facts of its headers: CO-RE
 * places every field, the constants are the maple tree's encoding. */
#ifndef EBPROF_VMA_BPF_H
#define EBPROF_VMA_BPF_H

/* The maple tree's encoded node pointers (include/linux/maple_tree.h): the node is
 * 256-byte aligned, its type in bits 3-6; the root pointer of a tree of more than one
 * entry has bit 1 set and no bit 0 (xa_is_node). */
#define MAPLE_NODE_MASK 255ULL
#define MAPLE_TYPE_SHIFT 3
#define MAPLE_TYPE_MASK 15
#define MAPLE_LEAF_64 1 /* enum maple_type: maple_dense 0, leaf 1, range 2, arange 3 */
#define MAPLE_RANGE_64 2
#define MAPLE_ARANGE_64 3
#define MAPLE_RANGE64_PIVOTS 15
#define MAPLE_ARANGE64_PIVOTS 9
/* Levels walked at most: a node holds at least 5 (internal) or 6 (leaf) entries, so 8
 * levels hold millions of VMAs; the kernel allows 65,530 per process by default. */
#define MAPLE_MAX_LEVELS 8
/* A red-black tree of n nodes is at most 2 log2(n + 1) deep: 32 covers 65,535 VMAs. */
#define RB_MAX_DEPTH 32

/* Before 6.1 the VMAs were a red-black tree. */
struct mm_struct___rb {
	struct rb_root mm_rb;
} __attribute__((preserve_access_index));

struct vm_area_struct___rb {
	struct rb_node vm_rb;
} __attribute__((preserve_access_index));

_Static_assert(VMA_WALK_PIVOTS == MAPLE_RANGE64_PIVOTS, "a node's pivots fit the walk state");

static __always_inline __u64 read_u64(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (const void *)addr);
	return v;
}

/* One level of the maple tree: the slot of w->node that covers w->key, as the kernel's
 * own lock-free look-up (mtree_lookup_walk) finds it: the first pivot at or above the
 * key, else the last slot. 1 when the walk is over (w->vma set or not). */
static __always_inline long maple_level(struct vma_walk *w)
{
	__u64 node = w->node & ~MAPLE_NODE_MASK,
	      type = (w->node >> MAPLE_TYPE_SHIFT) & MAPLE_TYPE_MASK;
	__u64 pivots, slots, next;
	__u32 n;

	if (type == MAPLE_ARANGE_64) {
		pivots = node + bpf_core_field_offset(struct maple_arange_64, pivot);
		slots = node + bpf_core_field_offset(struct maple_arange_64, slot);
		n = MAPLE_ARANGE64_PIVOTS;
	} else if (type == MAPLE_RANGE_64 || type == MAPLE_LEAF_64) {
		pivots = node + bpf_core_field_offset(struct maple_range_64, pivot);
		slots = node + bpf_core_field_offset(struct maple_range_64, slot);
		n = MAPLE_RANGE64_PIVOTS;
	} else {
		return 1; /* dense nodes hold no VMAs */
	}
	if (bpf_probe_read_kernel(w->pivots, sizeof(w->pivots), (const void *)pivots))
		return 1;
	/* The slot is the number of pivots below the key: the used pivots rise, the unused
	 * ones are 0. It is counted in map memory, whose values the verifier does not track,
	 * so each pivot's two outcomes end in one state, where a slot kept in a register
	 * would keep up to 16 paths apart through the rest of the level; and the loop is
	 * unrolled, where a loop's counter is precise and each turn is walked apart. */
	w->off = 0;
#pragma unroll
	for (__u32 i = 0; i < MAPLE_RANGE64_PIVOTS; i++) {
		if (i < n && w->pivots[i] && w->pivots[i] < w->key)
			w->off++;
	}
	next = read_u64(slots + (__u64)(w->off & 15) * 8);
	/* A node replaced under us points its parent at itself: give up, as the kernel's
	 * reader starts over. */
	if ((read_u64(node) & ~MAPLE_NODE_MASK) == node)
		return 1;
	if (type == MAPLE_LEAF_64) {
		w->vma = next;
		return 1;
	}
	w->node = next;
	return 0;
}

/* bpf_loop's context must be on the stack: it holds where the walk state is. */
struct vma_loop {
	struct vma_walk *w;
};

static long maple_step(__u32 i, void *arg)
{
	return maple_level(((struct vma_loop *)arg)->w);
}

/* The same for the unrolled walk (kernels without bpf_loop), inlined. */
static __always_inline long maple_step_inline(__u32 i, void *arg)
{
	return maple_level(((struct vma_loop *)arg)->w);
}

/* One step down the red-black tree, as find_vma before 6.1: the VMA ending above the
 * key with the lowest start holds it, if any does. 1 when the walk is over. */
static __always_inline long rb_level(struct vma_walk *w)
{
	__u64 vma, start, end;

	if (!w->node)
		return 1;
	vma = w->node - bpf_core_field_offset(struct vm_area_struct___rb, vm_rb);
	start = read_u64(vma + bpf_core_field_offset(struct vm_area_struct, vm_start));
	end = read_u64(vma + bpf_core_field_offset(struct vm_area_struct, vm_end));
	if (end > w->key) {
		if (start <= w->key) {
			w->vma = vma;
			return 1;
		}
		w->node = read_u64(w->node + bpf_core_field_offset(struct rb_node, rb_left));
	} else {
		w->node = read_u64(w->node + bpf_core_field_offset(struct rb_node, rb_right));
	}
	return 0;
}

static long rb_step(__u32 i, void *arg)
{
	return rb_level(((struct vma_loop *)arg)->w);
}

static __always_inline long rb_step_inline(__u32 i, void *arg)
{
	return rb_level(((struct vma_loop *)arg)->w);
}

/* Sets w->node to where the current task's tree starts; 0 when it has one of each
 * kind the kernel keeps: 1 for the maple tree, 2 for the red-black tree. */
static __always_inline int vma_tree(struct vma_walk *w, __u64 mm)
{
	if (bpf_core_field_exists(((struct mm_struct *)0)->mm_mt)) {
		w->node = read_u64(mm + bpf_core_field_offset(struct mm_struct, mm_mt.ma_root));
		/* Not a node: a tree of at most one entry, at address 0. */
		return (w->node & 3) == 2 && w->node > 4096 ? 1 : 0;
	}
	if (bpf_core_field_exists(((struct mm_struct___rb *)0)->mm_rb)) {
		w->node =
		    read_u64(mm + bpf_core_field_offset(struct mm_struct___rb, mm_rb.rb_node));
		return 2;
	}
	return 0;
}

#endif
