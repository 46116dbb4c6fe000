// SPDX-License-Identifier: GPL-2.0
/* Stacks on events: every cpu-clock perf event, probe (uprobe, uretprobe, USDT) and
 * tracepoint hit starts one chain (bpf/chain.h): its entry program captures who was
 * running and the kernel stack and takes the user registers, the native walker unwinds
 * the user stack from compiled CFI tables (frames as file id and offset), runtimes'
 * walkers add their frames, and the submitter sends one record through the ring buffer.
 * The walker places a pc in its file through the kernel's own VMAs, so a process needs
 * no description from userspace unless a runtime claims part of it. Programs marked "?" load only when userspace asks for them, so a plain CPU
 * profile verifies none of them. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/usdt.bpf.h>
#include "chain.bpf.h"
#include "vma.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Set before load: nonzero makes only the processes in profiled_pids count. */
const volatile __u32 filter_pids = 0;
/* Set before load: nonzero makes only the tasks of the groups in profiled_cgroups count
 * (--cgroup, --container), whatever process they are; with filter_pids, both must hold. */
const volatile __u32 filter_cgroups = 0;
/* Follow fork() of profiled processes (for "-- CMD" and its children). */
const volatile __u32 follow_children = 0;
/* Samples wake userspace only once this many bytes wait (a quarter of the ring),
 * instead of once per sample; userspace also polls on a timer. */
const volatile __u64 wakeup_bytes = 2 << 20;
/* Off-CPU time: its event index (0: off), and the share of blocks whose stack is taken,
 * in parts per million; a sampled block's time is scaled up by 1e6 / off_cpu_ppm. */
const volatile __u32 off_cpu_event = 0;
const volatile __u32 off_cpu_ppm = 1000000;
/* Stops (a thread stopped by a tracer or a stop signal) as their own event, every one
 * taken, its time unscaled; 0: left out. `ebprof dump` stops each thread for an instant
 * to have its stack taken here, in its own context, by every walker. */
const volatile __u32 stop_event = 0;
/* What the kernel has, from userspace's feature probes (src/loader/features.c): with 0
 * the call is dead code, which the verifier drops before it looks at helpers. */
const volatile __u32 have_task_pt_regs = 1;  /* bpf_task_pt_regs, 5.15 */
const volatile __u32 have_attach_cookie = 1; /* bpf_get_attach_cookie, 5.15 */
/* Without attach cookies every attachment of a program says the same: these (userspace
 * then allows one uprobe and one tracepoint probe, src/loader/probes.c). */
const volatile __u64 uprobe_cookie = 0;
const volatile __u64 tracepoint_cookie = 0;
const volatile __u64 alloc_cookie = 0;

/* Thread group ids to profile when filter_pids is set. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} profiled_pids SEC(".maps");

/* The cgroup v2 groups to profile when filter_cgroups is set, by the id
 * bpf_get_current_cgroup_id gives: each --cgroup group and every group below it, which
 * userspace adds as they appear (src/proc/cgroup.h: CGROUP_MAX_GROUPS). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u8);
} profiled_cgroups SEC(".maps");

/* Which rows of the pool belong to which table. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct unw_table);
} unwind_tables SEC(".maps");

/* The shared pool of compiled CFI rows of every table, in chunks that userspace creates
 * when a table first needs one and frees when its last table is evicted: the kernel
 * memory follows the tables in use, not the budget. Pool row i is row
 * i & (chunk rows - 1) of chunk i >> unwind_chunk_shift. */
struct unwind_rows_chunk {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	/* Userspace writes rows with memcpy through a mapping; BPF_F_INNER_MAP (5.10) lets
	 * the chunks have another size than this template, which is all it costs. */
	__uint(map_flags, BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	__uint(max_entries, 1);
	/* Sizes, not types: clang emits a pointee of a map-in-map template as a forward
	 * declaration, whose size libbpf cannot know. */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct unwind_row));
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 32); /* chunks: sized by userspace from the memory budget */
	__type(key, __u32);
	__array(values, struct unwind_rows_chunk);
} unwind_rows SEC(".maps");

const volatile __u32 unwind_chunk_shift = 16;

/* Every file whose table is built (or known not to be), by the kernel's identity of it:
 * the walker places a pc in its VMA and file itself (vma.bpf.h), so a process needs no
 * description for its native frames, and every process of a program shares the table
 * built for the first. Userspace (unwind/tables.c) writes it; allocated per file. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, struct unw_file_key);
	__type(value, struct unw_file);
} file_tables SEC(".maps");

/* When the walker last found each table through file_tables (bpf_ktime_get_ns, written
 * at most once a second): which tables the processes nobody described still use, for
 * userspace's evictions. Userspace reads it through a mapping. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 8192); /* as unwind_tables */
	__type(key, __u32);
	__type(value, __u64);
} table_used SEC(".maps");

/* Threads blocked now, by thread id (never by CPU: a thread often wakes on another CPU
 * than the one it blocked on): the record taken when it blocked, sent when it runs
 * again. Allocated per blocked thread; userspace shrinks it to 1 without off-CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct sample_record);
} off_cpu_pending SEC(".maps");

/* The user stack of each thread that began exiting lately, by thread id, for the
 * samples of its exit: once do_exit has let the memory go (exit_mm), the stack cannot be
 * read, and a short-lived process spends a good share of its samples there (unmapping
 * its pages). LRU: nothing frees an entry, the least recent exits make room (a few
 * hundred KiB of kernel memory; more exits at once than entries only lose stacks). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, struct sample_record);
} exit_stacks SEC(".maps");

/* An exit's stack serves samples taken within this long of its start. */
#define EXIT_STACK_NS 10000000000ULL

static __always_inline const struct unwind_row *pool_row(__u32 idx)
{
	__u32 chunk = idx >> unwind_chunk_shift;
	__u32 row = idx & ((1u << unwind_chunk_shift) - 1);
	void *rows = bpf_map_lookup_elem(&unwind_rows, &chunk);

	return rows ? bpf_map_lookup_elem(rows, &row) : NULL;
}

#define UNW_READ_USER(dst, size, addr) read_user(dst, size, addr)
#define UNW_ROW(idx) pool_row(idx)
#define UNW_LOOP(n, fn, ctx) bpf_loop(n, fn, ctx, 0)
#define UNW_READ_MAPPING(dst, proc, i)                                               \
	bpf_probe_read_kernel(dst, sizeof(struct unw_mapping),                       \
			      (const void *)((proc) + offsetof(struct unw_proc, m) + \
					     (__u64)(i) * sizeof(struct unw_mapping)))
#include "unwind_step.h"

/* Whether the current task's event counts: pid is its process. */
static __always_inline int wanted(__u32 pid)
{
	__u64 group;

	if (filter_cgroups) {
		group = bpf_get_current_cgroup_id();
		if (!bpf_map_lookup_elem(&profiled_cgroups, &group))
			return 0;
	}
	if (!filter_pids)
		return 1;
	return bpf_map_lookup_elem(&profiled_pids, &pid) != NULL;
}

/* The native walker's loop state: the loop callback reads it through its context. */
struct unw_ctx {
	struct unw_regs regs;
	struct chain_slot *s;
	const struct unw_proc *proc;
	__u32 slot;	 /* the scratch slot of s (enum scratch_slot) */
	__u32 described; /* without bpf_loop: the process has a description (proc_addr) */
};

#define PF_EXITING 0x00000004 /* include/linux/sched.h: the task is in do_exit() */

/* The current task is exiting: its memory map may be torn down already. */
static __always_inline bool exiting(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	return BPF_CORE_READ(task, flags) & PF_EXITING;
}

/* Remembers why the walk could not use a table here, if it is the first time: what
 * the sample counts as should its stack be cut (submit_walk). */
static __always_inline void walk_cause(struct walk_state *w, __u32 cause)
{
	if (!w->cause)
		w->cause = cause + 1;
}

/* Unwinds one frame of a mapping without a usable table (cause: why): frame pointers. */
static __always_inline int fp_frame(struct unw_ctx *c, __u32 counter, __u32 cause)
{
	count(counter);
	walk_cause(&c->s->w, cause);
	return unw_fp_step(&c->regs, c->s->r.ustack_len == 1);
}

/* Where the row search's state starts in walk_state.search (the mapping search's copy,
 * still in use, comes first). */
#define ROW_SEARCH_AT 10

#define ROW_NO_TABLE (-2)

/* Reads the row of table id for vpc into s->w.row (expanded when compact): 0, -1 when
 * no row covers vpc, ROW_NO_TABLE when the table has no rows. Without bpf_loop the row
 * search keeps its state in s->w.search. The row goes to map memory, whose values the
 * verifier does not track: the two forms of row end in one state, not two. */
static __always_inline long table_row(struct chain_slot *s, __u32 id, __u32 vpc, int unrolled)
{
	const struct unw_table *t = id ? bpf_map_lookup_elem(&unwind_tables, &id) : 0;
	__u32 lo, hi;
	long idx;

	if (!t || !t->count)
		return ROW_NO_TABLE;
	unw_row_window(t, vpc, &lo, &hi);
	if (unrolled)
		idx = unw_find_row_unrolled((struct unw_search *)&s->w.search[ROW_SEARCH_AT], t, lo,
					    hi, vpc);
	else
		idx = unw_find_row(t, lo, hi, vpc);
	if (idx < 0 || unw_read_row(t, (__u32)idx, &s->w.row))
		return -1;
	return 0;
}

/* table_row with bpf_loop, for the walk in scratch slot slot. A global function: the
 * verifier checks it once, where inlined in the frame it was checked once per path into
 * it (the page index's reads took the native walker from 13.5 k to 19 k verified
 * instructions that way). */
__noinline long table_row_loop(__u32 slot, __u32 id, __u32 vpc)
{
	struct chain_slot *s = bpf_map_lookup_elem(&scratch, &slot);

	return s ? table_row(s, id, vpc, 0) : ROW_NO_TABLE;
}

static __always_inline int table_frame(struct unw_ctx *c, const struct unw_mapping *m, __u64 pc,
				       int unrolled)
{
	__u32 vpc = (__u32)(pc - m->vaddr_bias);
	long found;
	int step;

	if (unrolled)
		found = table_row(c->s, m->table, vpc, 1);
	else
		found = table_row_loop(c->slot, m->table, vpc);
	if (found == ROW_NO_TABLE)
		return fp_frame(c, CTR_NO_TABLE, CUT_NEW_FILE);
	step = found ? UNW_STEP_NO_ROW : unw_apply_row(&c->s->w.row, &c->regs);
	/* Code the CFI does not cover (built without unwind tables, hand-written assembly)
	 * may still keep frame pointers. */
	if (step == UNW_STEP_NO_ROW)
		return fp_frame(c, CTR_NO_ROW, CUT_NO_ROW);
	return step;
}

/* Why a file's entry in file_tables has no table (enum cut_cause). */
static __always_inline __u32 file_cause(const struct unw_file *f)
{
	switch (f->state) {
	case UNW_FILE_NO_CFI:
		return CUT_NO_CFI;
	case UNW_FILE_NO_ROOM:
	case UNW_FILE_EVICTED:
		return CUT_NO_ROOM;
	}
	return CUT_NEW_FILE;
}

/* Asks userspace for the table of file (at pc of pid), at most once per 100 ms per file
 * whichever process meets it: the first of many processes running a new program says
 * it, and a build under way is not asked for again and again. */
static __always_inline void notice_file(__u32 pid, __u64 pc, const struct unw_file_key *file)
{
	__u32 key = (__u32)(file->ino ^ file->ino >> 28 ^ file->dev) & ((1u << 28) - 1);
	__u64 now = bpf_ktime_get_ns(), *last;
	struct notice_record n = {.type = RECORD_UNKNOWN_FILE, .pid = pid, .addr = pc};

	key |= (__u32)RECORD_UNKNOWN_FILE << 28;
	last = bpf_map_lookup_elem(&notice_times, &key);
	if (last && now - *last < CHAIN_NOTICE_INTERVAL_NS)
		return;
	bpf_map_update_elem(&notice_times, &key, &now, BPF_ANY);
	n.file = *file;
	if (bpf_ringbuf_output(&samples, &n, sizeof(n), BPF_RB_FORCE_WAKEUP))
		count(CTR_NOTICES_LOST);
}

/* The identity of the struct file at file (an address) into key. */
static __always_inline void file_key_of(__u64 file, struct unw_file_key *key)
{
	__u64 inode = read_u64(file + bpf_core_field_offset(struct file, f_inode));
	__u32 dev = 0;

	key->ino = read_u64(inode + bpf_core_field_offset(struct inode, i_ino));
	bpf_probe_read_kernel(
	    &dev, sizeof(dev),
	    (const void *)(read_u64(inode + bpf_core_field_offset(struct inode, i_sb)) +
			   bpf_core_field_offset(struct super_block, s_dev)));
	key->dev = dev;
}

/* Marks table id used now (at most once a second: the line is shared by 8 tables). */
static __always_inline void table_touch(__u32 id, __u64 now)
{
	__u64 *used = bpf_map_lookup_elem(&table_used, &id);

	if (used && now - *used > 1000000000ULL)
		*used = now;
}

/* The file behind VMA vma of the current task (mm: its memory map) into key; 0 when it
 * has none (anonymous memory; the vDSO, which every process maps from one image, is
 * the file {0, 0}). */
static __always_inline int vma_file(__u64 mm, __u64 vma, __u64 start, struct unw_file_key *key)
{
	__u64 file = read_u64(vma + bpf_core_field_offset(struct vm_area_struct, vm_file));

	key->dev = key->ino = 0;
	if (!file)
		return start ==
		       read_u64(mm + bpf_core_field_offset(struct mm_struct, context.vdso));
	file_key_of(file, key);
	return 1;
}

/* Fills m from file f's entry for the VMA at start mapping file offset pgoff on: its
 * table when one of the file's executable segments holds the mapping. */
static __always_inline void vma_table(struct unw_mapping *m, const struct unw_file *f, __u64 pgoff,
				      __u64 now)
{
	__u32 seg = f->nsegs > 1 && pgoff - f->segs[1].lo < f->segs[1].span ? 1 : 0;

	m->file_id = f->file_id;
	m->cut = file_cause(f) + 1;
	if (!f->table || !f->nsegs || pgoff - f->segs[seg].lo >= f->segs[seg].span)
		return;
	m->table = f->table;
	m->vaddr_bias = m->off_bias - f->segs[seg].delta;
	m->cut = 0;
	table_touch(f->table, now);
}

/* Tells userspace what it should know of the file (or anonymous code) of a VMA found:
 * a file without a table yet, or a file a runtime claims (or JIT code) in a process
 * with no description: the tracker describes it then, with the runtime's marks. */
static __always_inline void vma_notices(struct chain_slot *s, __u64 pc, const struct unw_file *f,
					const struct unw_file_key *key, int file, __u32 described)
{
	/* A table evicted, dropped, or that did not fit: the tracker decides whether to
	 * build it again (it tries one that did not fit when there may be room). */
	if (file && (!f || f->state >= UNW_FILE_NO_ROOM)) {
		count(CTR_FILE_UNKNOWN);
		notice_file(s->w.pid, pc, key);
	}
	if (!described && (file ? f && f->runtimes : 1))
		notice(RECORD_UNKNOWN_PID, s->w.pid, 0);
}

/* The kernel's VMA of pc for the walk of s, as a mapping of a description would be, into
 * s->w.vm: its file's id and table from file_tables. 1 when a VMA holds pc. described:
 * the process has a description. */
static __always_inline int vma_mapping(struct chain_slot *s, __u64 pc, __u32 described,
				       int unrolled)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 mm = (__u64)BPF_CORE_READ(task, mm), start, end, pgoff;
	struct unw_file_key key;
	const struct unw_file *f = 0;
	struct vma_loop loop;
	int tree, file;

	if (!mm)
		return 0;
	count(CTR_VMA_WALKS);
	s->w.vw.key = pc;
	s->w.vw.vma = 0;
	tree = vma_tree(&s->w.vw, mm);
	loop.w = &s->w.vw;
	if (tree == 1 && unrolled)
		UNW_UNROLLED(MAPLE_MAX_LEVELS, maple_step_inline, &loop);
	else if (tree == 1)
		bpf_loop(MAPLE_MAX_LEVELS, maple_step, &loop, 0);
	else if (tree == 2 && unrolled)
		UNW_UNROLLED(RB_MAX_DEPTH, rb_step_inline, &loop);
	else if (tree == 2)
		bpf_loop(RB_MAX_DEPTH, rb_step, &loop, 0);
	start = read_u64(s->w.vw.vma + bpf_core_field_offset(struct vm_area_struct, vm_start));
	end = read_u64(s->w.vw.vma + bpf_core_field_offset(struct vm_area_struct, vm_end));
	if (!s->w.vw.vma || pc < start || pc >= end) {
		count(CTR_VMA_MISSED);
		return 0;
	}
	pgoff = read_u64(s->w.vw.vma + bpf_core_field_offset(struct vm_area_struct, vm_pgoff))
		<< 12;
	file = vma_file(mm, s->w.vw.vma, start, &key);
	s->w.vm = (struct unw_mapping){.start = start, .end = end, .off_bias = start - pgoff};
	s->w.vm.cut = CUT_JIT + 1;
	if (file)
		f = bpf_map_lookup_elem(&file_tables, &key);
	if (f)
		vma_table(&s->w.vm, f, pgoff, s->r.time_ns);
	else if (file)
		s->w.vm.cut = CUT_NEW_FILE + 1;
	vma_notices(s, pc, f, &key, file, described);
	return 1;
}

/* A pc outside every mapping of a described process (dlopen, JIT): one notice. */
static __always_inline void unknown_mapping(struct chain_slot *s, __u64 pc)
{
	if (s->w.noticed)
		return;
	s->w.noticed = 1;
	count(CTR_UNKNOWN_MAPPING);
	notice(RECORD_UNKNOWN_MAPPING, s->w.pid, pc);
}

/* Completes the frame's mapping in s->w.cur from the kernel's VMAs (the one found last
 * when it holds pc too): all of it when the description has none for pc (have 0), or,
 * for a described mapping whose table was not built when the description was written,
 * the table from file_tables (the mapping keeps what the description says of it: a
 * runtime's mark). Returns 1 when s->w.cur is pc's mapping. */
static __always_inline int place_frame(__u32 slot, __u64 pc, __u32 described, __u32 have,
				       int unrolled)
{
	struct chain_slot *s = bpf_map_lookup_elem(&scratch, &slot);
	struct unw_mapping *cur, *vm;
	int found;

	if (!s)
		return 0;
	cur = &s->w.cur;
	vm = &s->w.vm;
	found = (pc >= vm->start && pc < vm->end) || vma_mapping(s, pc, described, unrolled);
	/* Outside the description: dlopen, JIT code it does not know yet. */
	if (!have && described)
		unknown_mapping(s, pc);
	if (!found) {
		vm->end = 0;
		return have;
	}
	if (!have) {
		*cur = *vm;
		return 1;
	}
	if (vm->table && vm->file_id == cur->file_id) {
		cur->table = vm->table;
		cur->vaddr_bias = vm->vaddr_bias;
		cur->cut = 0;
	}
	return 1;
}

/* place_frame with bpf_loop, and without it. Global functions: the verifier checks each
 * once, where inlined in the frame it was checked once per path into it. */
__noinline int place_frame_loop(__u32 slot, __u64 pc, __u32 described, __u32 have)
{
	return place_frame(slot, pc, described, have, 0);
}

__noinline int place_frame_unrolled(__u32 slot, __u64 pc, __u32 described, __u32 have)
{
	return place_frame(slot, pc, described, have, 1);
}

/* An interpreter loop's activation: its frame stays native and flagged, and the
 * runtime's walker runs once this walk is over (runtimes are < WALKER__COUNT <= 32). */
static __always_inline void flag_activation(struct walk_state *w, struct user_frame *f, __u32 rt)
{
	rt &= 31;
	f->pad = UF_ACTIVATION | rt;
	w->pending |= 1u << rt;
	if (rt < WALKER__COUNT && w->acts[rt] < 255)
		w->acts[rt]++;
}

/* The frame's mapping in the walk state (c->s->w.cur): the description's (m) when it
 * has one for pc, completed or found through the kernel's VMAs (place_frame) when it
 * has none or lacks its table. One pointer, into the walk state, whichever map the
 * mapping came from: the verifier keeps pointers into different maps apart, which
 * would double every path of the frame. NULL when no mapping holds pc. */
static __always_inline const struct unw_mapping *
frame_mapping(struct unw_ctx *c, const struct unw_mapping *m, __u64 pc, int unrolled)
{
	struct unw_mapping *cur = &c->s->w.cur;
	__u32 described = unrolled ? c->described : c->proc != 0;

	if (m) {
		*cur = *m;
		if (cur->table || cur->cut != CUT_NEW_FILE + 1 || !cur->file_id)
			return cur;
	}
	if (unrolled ? place_frame_unrolled(c->slot, pc, described, m != 0)
		     : place_frame_loop(c->slot, pc, described, m != 0))
		return cur;
	return 0;
}

/* Records the frame at regs.pc, found in mapping m (NULL: none in the description), and
 * steps to its caller; 1 when the walk stops here. */
static __always_inline long walk_frame(struct unw_ctx *c, const struct unw_mapping *m, int unrolled)
{
	struct sample_record *r = &c->s->r;
	__u64 pc = unw_lookup_pc(&c->regs);
	__u32 n = r->ustack_len;
	struct user_frame *f;
	int step;

	m = frame_mapping(c, m, pc, unrolled);
	if (m && m->mark == UNW_MARK_WALK) {
		c->s->w.handover = m->runtime;
		return 1;
	}
	if (n >= UNW_MAX_FRAMES) {
		r->flags |= SAMPLE_F_USER_TRUNCATED;
		return 1;
	}
	/* The mask restates the bound for the verifier, which lost it through the map. */
	f = &r->ustack[n & (UNW_MAX_FRAMES - 1)];
	r->ustack_len = n + 1;
	f->pad = 0;
	if (!m) {
		f->addr = c->regs.pc;
		f->file_id = 0;
		walk_cause(&c->s->w, exiting() ? CUT_EXITING : CUT_NO_VMA);
		step = unw_fp_step(&c->regs, n == 0);
	} else {
		/* Anonymous code (JIT) has no file: keep the raw pc, as for unknown ones. */
		f->addr = m->file_id ? pc - m->off_bias : c->regs.pc;
		f->file_id = m->file_id;
		if (m->mark == UNW_MARK_ACTIVATION)
			flag_activation(&c->s->w, f, m->runtime);
		step = m->table ? table_frame(c, m, pc, unrolled)
				: fp_frame(c, CTR_NO_TABLE, m->cut ? m->cut - 1 : CUT_JIT);
	}
	if (step == UNW_STEP_NEXT)
		return 0;
	c->s->w.stop = step;
	return 1;
}

/* bpf_loop() callback: one frame. The verifier checks this body once, whatever the
 * number of frames. */
static long unwind_frame(__u32 i, void *arg)
{
	struct unw_ctx *c = arg;
	__u64 pc = unw_lookup_pc(&c->regs);

	return walk_frame(c, c->proc ? unw_find_mapping(c->proc, pc) : 0, 0);
}

_Static_assert(sizeof(struct unw_copy_search) <= ROW_SEARCH_AT * 8 &&
		   ROW_SEARCH_AT * 8 + sizeof(struct unw_search) <=
		       sizeof(((struct walk_state *)0)->search),
	       "the walk state holds both searches");

/* One frame without bpf_loop, for the walk state of scratch slot slot: 1 when the walk
 * stops (walk_state.stop and .handover say why). A global function: the verifier checks
 * it once, as it checks a bpf_loop callback, where frames inlined in a loop are checked
 * once per path into them. Its mapping is copied into the walk state (unwind_step.h). */
__noinline int native_frame(__u32 slot)
{
	struct chain_slot *s = bpf_map_lookup_elem(&scratch, &slot);
	struct unw_ctx u = {};
	const struct unw_mapping *m = 0;
	long stop;

	if (!s)
		return 1;
	u.s = s;
	u.slot = slot;
	u.regs = s->w.regs;
	u.described = s->w.proc_addr != 0;
	if (u.described)
		m = unw_copy_mapping((struct unw_copy_search *)s->w.search, s->w.proc_addr,
				     s->w.nmaps, unw_lookup_pc(&u.regs));
	stop = walk_frame(&u, m, 1);
	s->w.regs = u.regs;
	return stop ? 1 : 0;
}

/* The in-order walk is over: say how it ended, then run the deferred runtimes. */
static __always_inline void walk_ended(struct chain_slot *s, __u32 stop)
{
	chain_stack_ends(s, stop);
	if (stop == UNW_STEP_NO_ROW)
		count(CTR_NO_ROW);
	else if (stop == UNW_STEP_READ_FAULT)
		count(CTR_READ_FAULT);
	else if (stop == UNW_STEP_BAD_FRAME)
		count(CTR_BAD_FRAME);
}

/* The native walker's first entry for a sample (no frame yet: later entries, after 32
 * frames without bpf_loop or a runtime's hand-back, have some): a process with a
 * description (one a runtime claims something of) has its mappings there; the others'
 * pcs are placed through the kernel's VMAs (vma_mapping). Here, not in the entry
 * program, so the description is looked up once per sample (a cold hash lookup:
 * 1.5-2 us of a whole-system sample). */
static __always_inline void first_entry(struct chain_slot *s, const struct unw_proc *proc)
{
	if (s->r.ustack_len)
		return;
	s->r.flags |= SAMPLE_F_USER_UNWOUND;
	if (!proc)
		count(CTR_UNKNOWN_PID);
}

/* The native walker: from the registers in the walk state, up to the stack's end, a
 * runtime's own code (hand-over), or the last slot. Entered from the entry program and
 * again each time a walking runtime hands the registers back. */
static __always_inline int native_walk(void *ctx, const struct chain c)
{
	struct unw_ctx u = {};
	struct chain_slot *s = chain_slot(c);

	if (!s)
		return 0;
	u.s = s;
	u.slot = c.slot;
	s->w.stop = UNW_STEP_END;
	s->w.handover = 0;
	u.regs = s->w.regs;
	u.proc = bpf_map_lookup_elem(&pid_to_mappings, &s->w.pid);
	first_entry(s, u.proc);
	if (u.proc)
		s->w.pending |= u.proc->always;
	/* One iteration more than there are slots: it finds them full and marks the
	 * stack truncated instead of passing it off as complete. */
	bpf_loop(UNW_MAX_FRAMES + 1, unwind_frame, &u, 0);
	s->w.regs = u.regs;
	/* s->w.handover tells the walker handed over that it was. */
	if (s->w.handover)
		return chain_next(ctx, c, s, s->w.handover);
	walk_ended(s, s->w.stop);
	return chain_next(ctx, c, s, chain_deferred(&s->w));
}
EBPROF_WALKER(native_walk)

/* Frames per program of the native walker without bpf_loop: 8 programs of them cover
 * UNW_MAX_FRAMES, well within the tail-call budget (WALK_MAX_TAIL_CALLS). */
#ifndef NATIVE_FRAMES_PER_CALL
#define NATIVE_FRAMES_PER_CALL 32
#endif

/* The native walker for kernels without bpf_loop (before 5.17): the same walk, a bounded
 * loop of NATIVE_FRAMES_PER_CALL calls of native_frame, then a tail call to itself while
 * frames remain: the registers wait in the walk state, as for a walking runtime. */
static __always_inline int native_walk_unrolled(void *ctx, const struct chain c)
{
	const struct unw_proc *proc;
	struct chain_slot *s = chain_slot(c);
	__u32 stop = 0;

	if (!s)
		return 0;
	proc = bpf_map_lookup_elem(&pid_to_mappings, &s->w.pid);
	first_entry(s, proc);
	s->w.proc_addr = 0;
	s->w.handover = 0;
	s->w.stop = UNW_STEP_END;
	if (proc) {
		s->w.pending |= proc->always;
		s->w.nmaps = proc->n;
		/* Stored in map memory, the pointer becomes a number the verifier does not
		 * track: the copying search needs no precise index. */
		s->w.proc_addr = (__u64)proc;
	}
	for (__u32 i = 0; i < NATIVE_FRAMES_PER_CALL && !stop; i++)
		stop = native_frame(c.slot);
	if (s->w.handover)
		return chain_next(ctx, c, s, s->w.handover);
	if (!stop) {
		/* Consistent if the budget cuts the walk here. */
		s->r.ustack_inorder = s->r.ustack_len;
		return chain_next(ctx, c, s, WALKER_NATIVE);
	}
	walk_ended(s, s->w.stop);
	return chain_next(ctx, c, s, chain_deferred(&s->w));
}
EBPROF_WALKER(native_walk_unrolled)

/* A wakeup costs the consumer a context switch: batch them. */
static __always_inline __u64 wakeup_flag(void)
{
	return bpf_ringbuf_query(&samples, BPF_RB_AVAIL_DATA) >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP
									      : BPF_RB_NO_WAKEUP;
}

/* Bytes of r worth sending: most stacks have a few dozen user frames. */
static __always_inline __u64 record_size(const struct sample_record *r)
{
	__u64 size = offsetof(struct sample_record, ustack) +
		     (__u64)(r->ustack_len & (2 * UNW_MAX_FRAMES - 1)) * sizeof(struct user_frame);

	/* Restated bound for the verifier: never past the record. */
	return size > sizeof(*r) ? sizeof(*r) : size;
}

static __always_inline void submit(struct sample_record *r)
{
	if (bpf_ringbuf_output(&samples, r, record_size(r), wakeup_flag()))
		count(CTR_RINGBUF_FULL);
}

/* A CPU sample whose user stack was cut counts once, by cause: the first frame its
 * walk could not unwind by a table, else how the walk ended. */
static __always_inline void count_cut(const struct chain_slot *s)
{
	__u32 cause = s->w.cause;

	if (s->r.event != EVENT_CPU ||
	    !(s->r.flags & (SAMPLE_F_USER_INCOMPLETE | SAMPLE_F_USER_TRUNCATED)))
		return;
	if (cause)
		cause--;
	else if (s->r.flags & SAMPLE_F_USER_TRUNCATED)
		cause = CUT_DEPTH;
	else if (s->r.stop_reason == UNW_STEP_READ_FAULT || s->r.stop_reason == UNW_STEP_BAD_FRAME)
		cause = CUT_STACK;
	else
		cause = CUT_RUNTIME;
	if (cause < CUT__COUNT)
		count(CTR_CUT_FIRST + cause);
}

/* The end of every chain: the record goes out, or, for a thread going off the CPU,
 * waits in off_cpu_pending until the thread runs again, or, for a thread's exit,
 * waits in exit_stacks for the exit's samples. */
static __always_inline int submit_walk(void *ctx, const struct chain c)
{
	struct chain_slot *s = chain_slot(c);
	__u32 tid;

	if (!s)
		return 0;
	if (s->w.finish == WALK_FINISH_EXIT) {
		tid = s->w.tid;
		bpf_map_update_elem(&exit_stacks, &tid, &s->r, BPF_ANY);
		return 0;
	}
	count_cut(s);
	if (s->w.finish != WALK_FINISH_KEEP) {
		submit(&s->r);
		return 0;
	}
	tid = s->w.tid;
	if (bpf_map_update_elem(&off_cpu_pending, &tid, &s->r, BPF_ANY))
		count(CTR_OFF_CPU_FULL);
	return 0;
}
EBPROF_WALKER(submit_walk)

/* Without a loop it suits kernels without bpf_loop as it is, under the name they use. */
static __always_inline int submit_walk_unrolled(void *ctx, const struct chain c)
{
	return submit_walk(ctx, c);
}
EBPROF_WALKER(submit_walk_unrolled)

/* The walk's registers from a user register set (an event's, or those saved at kernel
 * entry); exact: pc is the interrupted instruction. */
static __always_inline void user_regs(struct unw_regs *u, const struct arch_regs *r, __u32 exact)
{
	u->pc = ARCH_PC(r);
	u->sp = ARCH_SP(r);
	u->fp = ARCH_FP(r);
	u->lr = ARCH_RA_STRIP(ARCH_LR(r));
	u->bcp = ARCH_BCP(r);
	u->pc_exact = exact;
}

/* Where the current task's user registers were saved at kernel entry: the helper
 * (5.15), or where the architecture keeps them (the top of the kernel stack). */
static __always_inline const void *task_user_regs(void)
{
	struct task_struct *task;
	void *stack;

	if (have_task_pt_regs)
		return (const void *)bpf_task_pt_regs(bpf_get_current_task_btf());
	task = (struct task_struct *)bpf_get_current_task();
	stack = BPF_CORE_READ(task, stack);
	return stack ? ARCH_TASK_PT_REGS(stack) : NULL;
}

/* The user registers saved at kernel entry: for events that fire in the kernel
 * (tracepoints, a CPU sample that interrupted kernel code). */
static __always_inline int saved_user_regs(struct unw_regs *u)
{
	const void *regs = task_user_regs();
	struct arch_regs saved;
	__u32 insn = 0;

	if (!regs || bpf_probe_read_kernel(&saved, sizeof(saved), regs))
		return -1;
	user_regs(u, &saved, 0);
	if (!u->pc || !ARCH_USER_MODE(&saved))
		return -1;
	/* After a syscall the pc follows the syscall instruction and is looked up like a
	 * return address; after an interrupt or a fault it is the exact instruction, and
	 * looking up the byte before it can land in another row. */
	u->pc_exact = bpf_probe_read_user(&insn, ARCH_SYSCALL_INSN_LEN,
					  (void *)(u->pc - ARCH_SYSCALL_INSN_LEN)) ||
		      insn != ARCH_SYSCALL_INSN;
	return 0;
}

/* Sets up the walk of the user stack from u, the event's own user registers, or, when
 * the event has none (u->pc == 0), from the registers saved at kernel entry. Without
 * a user stack (kernel threads, no saved registers) the walk state's pc stays 0. Whether
 * the process is described the native walker finds (first_entry). */
static __always_inline void start_walk(struct chain_slot *s, struct unw_regs *u)
{
	struct sample_record *r = &s->r;

	if (!r->pid || (!u->pc && saved_user_regs(u)))
		return;
	s->w.regs = *u;
}

/* bpf_get_stack() takes every program type's context: perf event, pt_regs (probes),
 * tracepoint and raw tracepoint arguments. */
static __always_inline void fill_kernel_stack(void *ctx, struct sample_record *r, __u32 skip)
{
	long n = bpf_get_stack(ctx, r->kstack, sizeof(r->kstack), skip & BPF_F_SKIP_FIELD_MASK);

	r->kstack_len = 0;
	if (n < 0) {
		count(CTR_KSTACK_ERR);
		return;
	}
	r->kstack_len = n / sizeof(__u64);
	if (r->kstack_len == EBPROF_MAX_KSTACK)
		r->flags |= SAMPLE_F_KERNEL_TRUNCATED;
}

/* What every event's chain starts with: the current task's names and its kernel stack
 * (kskip innermost kernel frames left out) in the per-CPU record of the entry's
 * context, and the walk state, user registers from u (the event's own, or none: those
 * saved at kernel entry). Returns the slot, or NULL. A static subprogram, not inlined,
 * so the kernel stack's frames above it are the same for every entry (kskip). */
static __noinline struct chain_slot *collect(void *ctx, __u32 event, struct unw_regs *u,
					     __u32 kskip, __u32 slot)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct task_struct *task;
	struct sample_record *r;
	struct chain_slot *s;

	s = bpf_map_lookup_elem(&scratch, &slot);
	if (!s)
		return NULL;
	r = &s->r;
	r->type = RECORD_SAMPLE;
	r->event = event;
	r->time_ns = bpf_ktime_get_ns();
	r->value = 1; /* off-CPU time and allocations set their own */
	r->alloc_ptr = 0;
	r->alloc_size = 0;
	r->cgroup_id = bpf_get_current_cgroup_id();
	r->pid = id >> 32;
	r->tid = (__u32)id;
	r->cpu = bpf_get_smp_processor_id();
	r->flags = 0;
	r->ustack_len = 0;
	r->ustack_inorder = 0;
	r->stop_reason = 0;
	__builtin_memset(&s->w, 0, sizeof(s->w));
	s->w.pid = r->pid;
	s->w.tid = r->tid;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	/* Most samples' thread leads its group: its own name then, without reading the
	 * leader's (as a string, ~2 us of a cold sample). Another thread's leader: one
	 * fixed-size read (comm ends in a NUL in the kernel; userspace bounds it anyway). */
	if (r->tid == r->pid) {
		__builtin_memcpy(r->pcomm, r->comm, sizeof(r->pcomm));
	} else {
		task = (struct task_struct *)bpf_get_current_task();
		BPF_CORE_READ_INTO(&r->pcomm, task, group_leader, comm);
	}
	fill_kernel_stack(ctx, r, kskip);
	start_walk(s, u);
	return s;
}

/* Runs the chain from an entry program: the native walker, or straight to the
 * submitter when there is no user stack. Called last: a tail call does not return. */
static __always_inline void chain_start(void *ctx, const struct chain c, struct chain_slot *s)
{
	if (!s)
		return;
	if (!s->w.regs.pc) {
		chain_next(ctx, c, s, WALKER_SUBMIT);
		return;
	}
	s->w.tail_calls++;
	chain_tail_call(ctx, c, s, WALKER_NATIVE);
	count(CTR_TAIL_CALL_FAILED);
	chain_next(ctx, c, s, WALKER_SUBMIT);
}

/* A sample of an exit past exit_mm: the user stack kept when it began (on_exit_stack)
 * instead of a walk that would find no memory. Clears the walk's pc. */
static __always_inline void exit_stack(struct chain_slot *s)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct sample_record *k, *r = &s->r;
	__u32 n;

	if (!(BPF_CORE_READ(task, flags) & PF_EXITING) || BPF_CORE_READ(task, mm))
		return;
	k = bpf_map_lookup_elem(&exit_stacks, &r->tid);
	/* A reused thread id: another process's, or an old exit's. */
	if (!k || k->pid != r->pid || r->time_ns - k->time_ns > EXIT_STACK_NS)
		return;
	n = k->ustack_len;
	if (!n || n > UNW_MAX_FRAMES ||
	    bpf_probe_read_kernel(r->ustack, n * sizeof(r->ustack[0]), k->ustack))
		return;
	r->ustack_len = n;
	r->ustack_inorder = k->ustack_inorder;
	r->stop_reason = k->stop_reason;
	r->flags |=
	    k->flags & (SAMPLE_F_USER_TRUNCATED | SAMPLE_F_USER_UNWOUND | SAMPLE_F_USER_INCOMPLETE);
	if (r->flags & SAMPLE_F_USER_INCOMPLETE)
		s->w.cause = CUT_EXITING + 1;
	s->w.regs.pc = 0;
	count(CTR_EXIT_STACKS);
}

SEC("perf_event")
int on_cpu_sample(struct bpf_perf_event_data *ctx)
{
	const struct arch_regs *ev = (const struct arch_regs *)&ctx->regs;
	const struct chain c = {CHAIN_PERF, SCRATCH_IRQ};
	struct unw_regs u = {};
	struct chain_slot *s;

	count(CTR_SAMPLES);
	if (!wanted(bpf_get_current_pid_tgid() >> 32)) {
		count(CTR_FILTERED);
		return 0;
	}
	/* The perf event's own registers when it interrupted user mode. */
	if (ARCH_USER_MODE(ev))
		user_regs(&u, ev, 1);
	s = collect(ctx, EVENT_CPU, &u, 0, c.slot);
	/* Not only for samples in the kernel: under some hypervisors (PVM) the event's
	 * registers are the user's even there. */
	if (s && s->w.regs.pc)
		exit_stack(s);
	chain_start(ctx, c, s);
	return 0;
}

/* A thread exits: where the kernel traces that before the thread lets its memory go
 * (sched_process_exit before exit_mm: 6.18 here, not 6.12), its user stack, walked now, is kept
 * for the samples of the exit (exit_stack); before, the memory is gone already, counted.
 * The native walker alone: the raw tracepoints' chain has no runtime's walker unless
 * off-CPU time asked for them. Beside on_exit on the same tracepoint, so attaching it
 * patches no kernel code (a syscall tracepoint did, and crashed a 6.12 guest under TCG). */
SEC("?raw_tp/sched_process_exit")
int on_exit_stack(struct bpf_raw_tracepoint_args *ctx)
{
	const struct chain c = {CHAIN_RAWTP, SCRATCH_TRACE};
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct unw_regs u = {}; /* the ones saved at kernel entry */
	struct chain_slot *s;

	if (!wanted(bpf_get_current_pid_tgid() >> 32))
		return 0;
	if (!BPF_CORE_READ(task, mm)) {
		count(CTR_EXIT_NO_MM);
		return 0;
	}
	s = collect(ctx, EVENT_CPU, &u, 0, c.slot);
	if (!s)
		return 0;
	s->w.finish = WALK_FINISH_EXIT;
	chain_start(ctx, c, s);
	return 0;
}

/* The attachment's cookie; without the helper, the one cookie of every attachment. */
static __always_inline __u64 attach_cookie(void *ctx, __u64 fixed)
{
	return have_attach_cookie ? bpf_get_attach_cookie(ctx) : fixed;
}

/* Probe hits share a filter and a counter; false when this one is not wanted. */
static __always_inline bool probe_hit(void)
{
	count(CTR_EVENTS);
	if (wanted(bpf_get_current_pid_tgid() >> 32))
		return true;
	count(CTR_EVENTS_FILTERED);
	return false;
}

/* uprobe and uretprobe (the same program type; the cookie says which, and the event
 * index). A uprobe fires in user mode, so ctx holds the user registers: at a uprobe the
 * pc is the probed instruction itself; at a uretprobe the kernel has already put the
 * return address back in ip, which is looked up as a return address. */
SEC("?uprobe")
int on_uprobe(struct pt_regs *ctx)
{
	const struct chain c = {CHAIN_UPROBE, SCRATCH_TASK};
	__u64 cookie = attach_cookie(ctx, uprobe_cookie);
	struct unw_regs u;

	if (!probe_hit())
		return 0;
	user_regs(&u, (const struct arch_regs *)ctx, !(cookie & PROBE_COOKIE_RETURN));
	/* After the return the link register holds the kernel's return trampoline. */
	if (cookie & PROBE_COOKIE_RETURN)
		u.lr = 0;
	chain_start(ctx, c, collect(ctx, (__u32)cookie, &u, 0, c.slot));
	return 0;
}

/* A USDT probe: a uprobe at the note's address, attached by libbpf, whose cookie is
 * kept in libbpf's spec map (bpf_usdt_cookie). */
SEC("?usdt")
int on_usdt(struct pt_regs *ctx)
{
	const struct chain c = {CHAIN_UPROBE, SCRATCH_TASK};
	struct unw_regs u;

	if (!probe_hit())
		return 0;
	user_regs(&u, (const struct arch_regs *)ctx, 1);
	chain_start(ctx, c, collect(ctx, (__u32)bpf_usdt_cookie(ctx), &u, 0, c.slot));
	return 0;
}

/* A kernel tracepoint (perf event of the tracepoint PMU, cookie = event index): the
 * task is in the kernel, its user registers are the ones saved at kernel entry. */
SEC("?tracepoint")
int on_tracepoint(void *ctx)
{
	const struct chain c = {CHAIN_TP, SCRATCH_TRACE};
	struct unw_regs u = {}; /* none: the ones saved at kernel entry */

	if (!probe_hit())
		return 0;
	chain_start(ctx, c,
		    collect(ctx, (__u32)attach_cookie(ctx, tracepoint_cookie), &u, 0, c.slot));
	return 0;
}

/* A child of a profiled process is profiled too ("-- CMD" follows its children). A raw
 * tracepoint, not tp_btf: it needs no attach BTF, so loading never parses vmlinux BTF. */
SEC("raw_tp/sched_process_fork")
int on_fork(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *parent = (struct task_struct *)ctx->args[0];
	struct task_struct *child = (struct task_struct *)ctx->args[1];
	__u32 ppid = BPF_CORE_READ(parent, tgid);
	__u32 cpid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (!follow_children || ppid == cpid)
		return 0;
	if (!bpf_map_lookup_elem(&profiled_pids, &ppid))
		return 0;
	if (bpf_map_update_elem(&profiled_pids, &cpid, &one, BPF_ANY))
		count(CTR_FILTER_FULL);
	return 0;
}

/* A process replaced its image: its mappings are stale. Described processes, and with
 * a process filter every wanted one, are looked at again right away (the new image may
 * run a runtime, or map files without tables yet); elsewhere the walker places a new
 * image's pcs itself, and userspace hears only of an executable without a table yet,
 * so a burst of short execs of known programs costs it nothing. */
/* A new image whose executable has no table yet: asked for now, not at its first
 * sample, so a program run for the first time waits less for it. */
static __always_inline void exec_file(__u32 pid)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 file = (__u64)BPF_CORE_READ(task, mm, exe_file);
	struct unw_file_key key;

	if (!file)
		return;
	file_key_of(file, &key);
	if (!bpf_map_lookup_elem(&file_tables, &key))
		notice_file(pid, 0, &key);
}

SEC("raw_tp/sched_process_exec")
int on_exec(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	struct notice_record n = {.type = RECORD_EXEC, .pid = pid};
	bool described = bpf_map_lookup_elem(&pid_to_mappings, &pid) != NULL;

	if (!wanted(pid))
		return 0;
	if (!described && !filter_pids) {
		exec_file(pid);
		return 0;
	}
	if (described)
		bpf_map_delete_elem(&pid_to_mappings, &pid);
	/* Wake userspace now: behind batched samples a plain output would wait for the
	 * next poll (100 ms), and until the tracker has looked at the new image a runtime
	 * in it has no marks. */
	if (bpf_ringbuf_output(&samples, &n, sizeof(n), BPF_RB_FORCE_WAKEUP))
		count(CTR_NOTICES_LOST);
	return 0;
}

/* A process ended: userspace releases what it held for it. */
SEC("raw_tp/sched_process_exit")
int on_exit(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct notice_record n = {.type = RECORD_PROCESS_EXIT, .pid = id >> 32};

	/* Threads exit one by one; the process ends with its leader. */
	if ((__u32)id != (__u32)(id >> 32) || !bpf_map_lookup_elem(&pid_to_mappings, &n.pid))
		return 0;
	if (bpf_ringbuf_output(&samples, &n, sizeof(n), 0))
		count(CTR_NOTICES_LOST);
	return 0;
}

/* task_struct.state became __state in 5.14. */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

static __always_inline __u32 task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return (__u32)BPF_CORE_READ((struct task_struct___pre514 *)t, state);
}

#define TASK_INTERRUPTIBLE 0x1
#define TASK_UNINTERRUPTIBLE 0x2
#define TASK_STOPPED_BIT 0x4 /* __TASK_STOPPED: a stop signal's */
#define TASK_TRACED_BIT 0x8  /* __TASK_TRACED: a tracer's (TASK_TRACED adds WAKEKILL < 5.19) */
#define PF_KTHREAD 0x00200000

/* off_cpu_ppm of a million blocks are sampled; the rest cost a random number. */
static __always_inline bool off_cpu_sampled(void)
{
	return off_cpu_ppm >= 1000000 ||
	       (((__u64)bpf_get_prandom_u32() * 1000000) >> 32) < off_cpu_ppm;
}

/* prev (the current task) gives up the CPU. A thread going to sleep (not preempted, not
 * exiting) has its stack taken here, where it blocks, and kept until it runs again; a
 * stopped one's too, as stop_event. Kernel threads are left out: their idle waits would
 * bury every user thread's. */
static __always_inline void off_cpu_begin(void *ctx, bool preempt, struct task_struct *prev)
{
	const struct chain c = {CHAIN_RAWTP, SCRATCH_TRACE};
	__u64 id = bpf_get_current_pid_tgid();
	struct unw_regs u = {}; /* the ones saved at kernel entry */
	__u32 state = task_state(prev), event;
	struct chain_slot *s;

	if (preempt)
		return;
	if (state & (TASK_STOPPED_BIT | TASK_TRACED_BIT))
		event = stop_event;
	else if (state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE))
		event = off_cpu_event;
	else
		return;
	if (!event || (BPF_CORE_READ(prev, flags) & PF_KTHREAD) || !wanted(id >> 32))
		return;
	if (event != stop_event && !off_cpu_sampled())
		return;
	/* A raw tracepoint's kernel stack starts in its runner (bpf_trace_run4) and our
	 * two BPF frames (on_sched_switch, collect): skip them, so it starts at
	 * __schedule, where the thread blocked. */
	s = collect(ctx, event, &u, 3, c.slot);
	if (s)
		s->w.finish = WALK_FINISH_KEEP;
	chain_start(ctx, c, s);
}

/* delta scaled by 1e6 / off_cpu_ppm without overflowing for long sleeps. */
static __always_inline __u64 off_cpu_value(__u64 delta)
{
	__u64 ppm = off_cpu_ppm ? off_cpu_ppm : 1;

	return delta / ppm * 1000000 + delta % ppm * 1000000 / ppm;
}

/* next runs again: its block ends, and the record taken when it began is sent with the
 * time it was off the CPU. Before off_cpu_begin: that one ends in a tail call. It is stamped with the end: that is when the event is known
 * and sent, so it falls into the interval an agent is collecting then. */
static __always_inline void off_cpu_end(struct task_struct *next)
{
	__u32 tid = BPF_CORE_READ(next, pid);
	struct sample_record *r = bpf_map_lookup_elem(&off_cpu_pending, &tid);
	__u64 now = bpf_ktime_get_ns();

	if (!r)
		return;
	r->value = stop_event && r->event == stop_event ? now - r->time_ns
							: off_cpu_value(now - r->time_ns);
	r->time_ns = now;
	submit(r);
	bpf_map_delete_elem(&off_cpu_pending, &tid);
}

/* A raw tracepoint, not tp_btf: no vmlinux BTF to parse at load. Arguments: preempt,
 * prev, next (prev_state is left alone: it only exists from 5.18). */
SEC("?raw_tp/sched_switch")
int on_sched_switch(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *prev = (struct task_struct *)ctx->args[1];
	struct task_struct *next = (struct task_struct *)ctx->args[2];

	off_cpu_end(next);
	off_cpu_begin(ctx, ctx->args[0] & 1, prev);
	return 0;
}

/* Allocation profiling. With libebprof-alloc.so preloaded the process samples its own
 * allocations and calls two marker functions (src/preload/abi.h): on_alloc_sample collects
 * the stack of a sampled allocation, on_alloc_free reports the free of a sampled block.
 * Without it (kernel-only mode) on_libc_alloc sits on the allocator's entry points and
 * samples by bytes here: every call traps into the kernel, which is what makes that
 * mode expensive. */

/* Kernel-only mode: the mean distance in bytes between two samples, at most 2^40 (the
 * fixed-point product below must not overflow), and log2(1 + i / 256) for i = 0..256
 * in 1/65536ths; userspace fills both before load, as BPF has no floating point. */
const volatile __u64 alloc_mean = 512 * 1024;
const volatile __u32 alloc_log2_frac[ALLOC_LOG2_STEPS + 1];

/* Bytes left before the next sample point, per CPU: by memorylessness the bytes of all
 * threads on a CPU form one Poisson process as well as each thread's would. */
struct alloc_countdown {
	__s64 left;
	__u64 seeded;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct alloc_countdown);
} alloc_countdowns SEC(".maps");

/* A marker of libebprof-alloc.so: ebprof_alloc_sample(ptr, size, weight_bytes). The pc
 * is the marker's first instruction (a nop5 the kernel emulates), exact. */
SEC("?uprobe")
int on_alloc_sample(struct pt_regs *ctx)
{
	const struct chain c = {CHAIN_UPROBE, SCRATCH_TASK};
	const struct arch_regs *r = (const struct arch_regs *)ctx;
	__u64 ptr = ARCH_ARG1(r), size = ARCH_ARG2(r), weight = ARCH_ARG3(r);
	struct chain_slot *s;
	struct unw_regs u;

	if (!probe_hit())
		return 0;
	user_regs(&u, r, 1);
	s = collect(ctx, (__u32)attach_cookie(ctx, alloc_cookie), &u, 0, c.slot);
	if (!s)
		return 0;
	s->r.value = weight;
	s->r.alloc_ptr = ptr;
	s->r.alloc_size = size;
	chain_start(ctx, c, s);
	return 0;
}

/* ebprof_alloc_free(ptr): no stack, the block's own stack was sent with its sample. The
 * library calls it before the block returns to the allocator, so this record is in the
 * ring buffer before any sample of a new block at the same address. */
SEC("?uprobe")
int on_alloc_free(struct pt_regs *ctx)
{
	struct notice_record n = {
	    .type = RECORD_ALLOC_FREE,
	    .pid = bpf_get_current_pid_tgid() >> 32,
	    .addr = ARCH_ARG1((const struct arch_regs *)ctx),
	};

	if (!wanted(n.pid))
		return 0;
	if (bpf_ringbuf_output(&samples, &n, sizeof(n), wakeup_flag()))
		count(CTR_ALLOC_FREES_LOST);
	return 0;
}

/* Index of the highest set bit of x (x > 0), without loops. */
static __always_inline __u32 msb64(__u64 x)
{
	__u32 r = 0;

	if (x >> 32) {
		x >>= 32;
		r += 32;
	}
	if (x >> 16) {
		x >>= 16;
		r += 16;
	}
	if (x >> 8) {
		x >>= 8;
		r += 8;
	}
	if (x >> 4) {
		x >>= 4;
		r += 4;
	}
	if (x >> 2) {
		x >>= 2;
		r += 2;
	}
	return r + (__u32)(x >> 1);
}

#define LN2_Q16 45426 /* ln 2 in 1/65536ths */

/* An exponential distance with mean alloc_mean, rounded up: -ln(U) * mean for U uniform
 * in (0, 1], with log2 from the table, interpolated between its entries. */
static __always_inline __s64 alloc_draw(void)
{
	__u64 x = (__u64)bpf_get_prandom_u32() + 1; /* U * 2^32, in [1, 2^32] */
	__u32 msb = msb64(x);
	__u64 m = x << (40 - msb); /* leading one at bit 40 */
	__u32 idx = (m >> 32) & (ALLOC_LOG2_STEPS - 1), rest = (m >> 16) & 0xffff;
	__u64 lo = alloc_log2_frac[idx], hi = alloc_log2_frac[idx + 1];
	__u64 log2_q16 = ((__u64)msb << 16) + lo + (((hi - lo) * rest) >> 16);
	__u64 neg_ln_q16 = ((((__u64)32 << 16) - log2_q16) * LN2_Q16) >> 16;

	return (__s64)((neg_ln_q16 * alloc_mean) >> 16) + 1;
}

/* The size argument of an allocator entry point. For calloc, factors below 2^32 cannot
 * overflow; beyond that only a factor of 0 or 1 is taken, and other callocs of over
 * 4 G elements or bytes read as 0 (unsampled): clang turns a division-based overflow
 * check into a 128-bit multiply, which BPF does not have. */
static __always_inline __u64 alloc_size_arg(struct pt_regs *ctx, __u32 kind)
{
	const struct arch_regs *r = (const struct arch_regs *)ctx;
	__u64 a1 = ARCH_ARG1(r), a2 = ARCH_ARG2(r);

	switch (kind) {
	case ALLOC_ARG_2:
		return a2;
	case ALLOC_ARG_3:
		return ARCH_ARG3(r);
	case ALLOC_ARG_1_TIMES_2:
		if (((a1 | a2) >> 32) && a1 > 1 && a2 > 1)
			return 0;
		return a1 * a2;
	}
	return a1;
}

/* True when a sample point falls in the next size bytes; draws the next point then. A
 * block of s bytes is sampled with probability 1 - exp(-s / mean). Atomic: a uprobe
 * program may be preempted on its CPU by another task running it. */
static __always_inline bool alloc_due(__u64 size)
{
	__u32 zero = 0;
	struct alloc_countdown *c = bpf_map_lookup_elem(&alloc_countdowns, &zero);
	__s64 before;

	if (!c)
		return false;
	before = __sync_fetch_and_add(&c->left, -(__s64)size);
	if (before > (__s64)size)
		return false;
	if (!c->seeded) {
		c->seeded = 1;
		before = alloc_draw();
		c->left = before - (__s64)size;
		if (before > (__s64)size)
			return false;
	}
	c->left = alloc_draw(); /* memoryless: measured from the block's end */
	return true;
}

/* Kernel-only mode: an entry point of the allocator (malloc, calloc, realloc, ...). The
 * cookie holds the event index and which argument is the size. */
SEC("?uprobe")
int on_libc_alloc(struct pt_regs *ctx)
{
	const struct chain c = {CHAIN_UPROBE, SCRATCH_TASK};
	/* Without cookies (userspace refuses this mode then) the call is dead code. */
	__u64 cookie = attach_cookie(ctx, 0);
	__u64 size = alloc_size_arg(ctx, (cookie >> ALLOC_COOKIE_ARG_SHIFT) & 0xff);
	struct chain_slot *s;
	struct unw_regs u;

	if (!probe_hit() || !size || !alloc_due(size))
		return 0;
	user_regs(&u, (const struct arch_regs *)ctx, 1);
	s = collect(ctx, (__u32)cookie, &u, 0, c.slot);
	if (!s)
		return 0;
	s->r.value = 0; /* userspace scales alloc_size by the sampling mean */
	s->r.alloc_size = size;
	chain_start(ctx, c, s);
	return 0;
}
