// SPDX-License-Identifier: Apache-2.0
/* Sample record to stack: kernel addresses are kept as they are; user addresses become
 * (file id, file offset) through the process's mappings, so stacks of different
 * processes running the same code aggregate and symbolize as one; runtimes' frames are
 * named by their runtime, and the groups deferred runtimes sent after the in-order
 * frames are spliced in at the activations they belong to. */
#include <string.h>

#include "proc/cgroup_names.h"
#include "profile/frame_source.h"
#include "profile/ingest.h"

void ingest__init(struct ingest *in, struct proc_table *procs, struct profile *profile)
{
	memset(in, 0, sizeof(*in));
	in->procs = procs;
	in->profile = profile;
}

/* Frames after the first are return addresses: the call is one byte earlier, and the
 * byte after a call may already belong to the next function. */
static uint64_t call_site(uint64_t addr, unsigned int depth)
{
	return depth ? addr - 1 : addr;
}

static unsigned int add_kernel(struct stack *s, const struct sample_record *r)
{
	unsigned int n = r->kstack_len < EBPROF_MAX_KSTACK ? r->kstack_len : EBPROF_MAX_KSTACK;

	for (unsigned int i = 0; i < n; i++) {
		s->frames[i] = (struct frame){
		    .addr = call_site(r->kstack[i], i),
		    .kind = FRAME_KERNEL,
		};
	}
	return n;
}

/* A runtime's frame into up to max frames: one unknown frame when no source takes it. */
static unsigned int add_runtime_frame(struct ingest *in, uint32_t pid, const struct user_frame *uf,
				      struct frame *out, unsigned int max)
{
	if (!max)
		return 0;
	if (in->frames && in->frames->ingest)
		return in->frames->ingest(in->frames->ctx, pid, uf, out, max);
	*out = (struct frame){.kind = FRAME_UNKNOWN};
	return 1;
}

/* One in-order frame i of r into out (room for max); returns the frames written. */
static unsigned int add_frame(struct ingest *in, const struct sample_record *r, unsigned int i,
			      struct frame *out, unsigned int max, uint64_t now_ns)
{
	const struct user_frame *uf = &r->ustack[i];
	struct proc_addr a;

	if (UF_IS_RUNTIME(uf->file_id))
		return add_runtime_frame(in, r->pid, uf, out, max);
	/* The unwinder already placed the frame in its file. */
	if (uf->file_id) {
		*out =
		    (struct frame){.addr = uf->addr, .file_id = uf->file_id, .kind = FRAME_NATIVE};
		return 1;
	}
	a = proc_table__resolve(in->procs, r->pid, call_site(uf->addr, i), now_ns);
	*out = (struct frame){
	    .addr = a.off, .file_id = a.file_id, .kind = a.file_id ? FRAME_NATIVE : FRAME_UNKNOWN};
	if (!a.mapped)
		in->unmapped_frames++;
	return 1;
}

/* The next group runtime rt deferred, from *cursor on: its bounds in [*first, *end).
 * False when it has no more; an empty group's marker is consumed but not returned. */
static bool next_group(const struct sample_record *r, unsigned int n, uint32_t rt,
		       unsigned int *cursor, unsigned int *first, unsigned int *end)
{
	unsigned int i = *cursor;

	while (i < n &&
	       (!UF_IS_RUNTIME(r->ustack[i].file_id) || UF_RUNTIME_OF(r->ustack[i].file_id) != rt))
		i++;
	if (i == n)
		return false;
	*first = i;
	while (i < n && !(r->ustack[i].pad & UF_GROUP_END))
		i++;
	*end = i < n ? i + 1 : n;
	*cursor = *end;
	if (r->ustack[*first].pad & UF_GROUP_EMPTY)
		*end = *first;
	return true;
}

static unsigned int add_user(struct ingest *in, struct stack *s, unsigned int at,
			     const struct sample_record *r, uint64_t now_ns)
{
	unsigned int n = r->ustack_len < UNW_MAX_FRAMES ? r->ustack_len : UNW_MAX_FRAMES;
	unsigned int inorder = r->ustack_inorder < n ? r->ustack_inorder : n;
	unsigned int cursor[WALKER__COUNT], out = at, max = PROFILE_MAX_FRAMES;

	for (unsigned int k = 0; k < WALKER__COUNT; k++)
		cursor[k] = inorder;
	for (unsigned int i = 0; i < inorder && out < max; i++) {
		uint32_t pad = r->ustack[i].pad, rt = pad & 0xff, first, end;

		/* An activation of a deferred runtime: its frames instead of the native one. */
		if ((pad & UF_ACTIVATION) && rt < WALKER__COUNT &&
		    next_group(r, n, rt, &cursor[rt], &first, &end) && first < end) {
			for (unsigned int k = first; k < end && out < max; k++)
				out += add_frame(in, r, k, &s->frames[out], max - out, now_ns);
			continue;
		}
		out += add_frame(in, r, i, &s->frames[out], max - out, now_ns);
	}
	if (out == max)
		s->truncated = true;
	return out - at;
}

/* The labels a runtime's walker appended after the in-order part (frames flagged
 * UF_LABEL, consecutive) into labels (at most max); how many. */
static unsigned int runtime_labels(struct ingest *in, const struct sample_record *r,
				   struct label *labels, unsigned int max)
{
	unsigned int n = r->ustack_len < UNW_MAX_FRAMES ? r->ustack_len : UNW_MAX_FRAMES;
	unsigned int i = r->ustack_inorder < n ? r->ustack_inorder : n, first;

	while (i < n && !(UF_IS_RUNTIME(r->ustack[i].file_id) && (r->ustack[i].pad & UF_LABEL)))
		i++;
	for (first = i;
	     i < n && UF_IS_RUNTIME(r->ustack[i].file_id) && (r->ustack[i].pad & UF_LABEL) &&
	     r->ustack[i].file_id == r->ustack[first].file_id;
	     i++)
		;
	if (i == first || !in->frames || !in->frames->labels)
		return 0;
	return in->frames->labels(in->frames->ctx, r->pid, &r->ustack[first], i - first, labels,
				  max);
}

/* The sample's group, as "cgroup" (its path), "container.id" when its name carries one
 * and "k8s.pod.uid" when its path does; none for the root group. How many labels, at most max. */
static unsigned int cgroup_labels(struct ingest *in, const struct sample_record *r, uint64_t now_ns,
				  struct label *labels, unsigned int max)
{
	const struct cgroup_name *g;
	unsigned int n = 0;

	if (!in->cgroups || !(g = cgroup_names__get(in->cgroups, r->cgroup_id, now_ns)))
		return 0;
	if (n < max)
		labels[n++] = (struct label){"cgroup", g->path};
	if (n < max && g->container_id[0])
		labels[n++] = (struct label){"container.id", g->container_id};
	if (n < max && g->pod_uid[0])
		labels[n++] = (struct label){"k8s.pod.uid", g->pod_uid};
	return n;
}

/* The sample's labels (a runtime's, then its group's) as the id of their set in the
 * profile; 0 for none. */
static uint32_t add_labels(struct ingest *in, const struct sample_record *r, uint64_t now_ns)
{
	struct label labels[LABELS_MAX];
	unsigned int n = runtime_labels(in, r, labels, LABELS_MAX);

	n += cgroup_labels(in, r, now_ns, labels + n, LABELS_MAX - n);
	return n ? label_sets__intern(&in->profile->labels, labels, n) : 0;
}

/* Leaves out the innermost user frames that share the innermost one's file (resolved
 * by BPF or here alike). Returns how many user frames remain. */
static unsigned int trim_innermost_file(struct stack *s, unsigned int at, unsigned int n)
{
	uint32_t file = n ? s->frames[at].file_id : 0;
	unsigned int skip = 0;

	if (!file)
		return n;
	while (skip < n && s->frames[at + skip].file_id == file &&
	       s->frames[at + skip].kind == FRAME_NATIVE)
		skip++;
	memmove(&s->frames[at], &s->frames[at + skip], (n - skip) * sizeof(s->frames[0]));
	memset(&s->frames[at + n - skip], 0, skip * sizeof(s->frames[0]));
	return n - skip;
}

/* BPF's string reads stop at the NUL and leave the rest of the buffer as it was. */
static void copy_name(char dst[EBPROF_COMM_LEN], const char src[EBPROF_COMM_LEN])
{
	size_t n = strnlen(src, EBPROF_COMM_LEN - 1);

	memcpy(dst, src, n);
	memset(dst + n, 0, EBPROF_COMM_LEN - n);
}

int ingest__event(struct ingest *in, const struct sample_record *r, uint64_t now_ns,
		  const uint64_t *values)
{
	struct stack *s = &in->scratch.stack;
	unsigned int n;

	/* The stack is hashed and compared as bytes: no stale padding may reach it. */
	memset(s, 0, sizeof(*s));
	s->pid = r->pid;
	s->tid = r->tid;
	s->event = r->event;
	s->cpu = in->profile->by_cpu ? (int32_t)r->cpu : -1;
	copy_name(s->comm, r->pcomm);
	copy_name(s->thread, r->comm);
	/* The root is missing when the outermost half we have was cut. */
	if (r->ustack_len)
		s->truncated = r->flags & (SAMPLE_F_USER_TRUNCATED | SAMPLE_F_USER_INCOMPLETE);
	else
		s->truncated = r->flags & SAMPLE_F_KERNEL_TRUNCATED;
	n = add_kernel(s, r);
	if (r->pid) {
		unsigned int user = add_user(in, s, n, r, now_ns);

		if (in->trim_innermost_file)
			user = trim_innermost_file(s, n, user);
		n += user;
		s->labels = add_labels(in, r, now_ns);
	}
	s->nframes = n;
	return profile__add(in->profile, s, values, r->time_ns + in->mono_to_unix_ns);
}

int ingest__sample(struct ingest *in, const struct sample_record *r, uint64_t now_ns)
{
	/* Every event counts once; its second value (off-CPU time) is the record's. */
	const uint64_t values[2] = {1, r->value};

	return ingest__event(in, r, now_ns, values);
}
