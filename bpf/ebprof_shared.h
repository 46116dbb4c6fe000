/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Project-wide ids shared by the BPF programs and userspace: counter ids, walker slots
 * and limits. Only fixed-width, pointer-free definitions live here, so both sides
 * compile it. */
#ifndef EBPROF_SHARED_H
#define EBPROF_SHARED_H

/* bpf_get_stack() never returns more than the kernel's perf_event_max_stack (127 by
 * default); one slot more keeps the arrays a power of two. */
#define EBPROF_MAX_KSTACK 128
#define EBPROF_MAX_USTACK 256 /* frames the CFI unwinder follows (UNW_MAX_FRAMES) */
#define EBPROF_COMM_LEN 16

/* Why a CPU sample's user stack was cut (it shows as [truncated]): the first frame of its
 * walk that no table could unwind, else how the walk stopped. Each cause is an id, what
 * happened, and what the user can do about it; userspace prints one line per dominant
 * cause from this table (src/unwind/cut.c), so a new cause is one line here.
 * X(id, what happened to the samples, the remedy) */
#define EBPROF_CUT_CAUSES(X)                                                                 \
	X(NEW_FILE, "in files met before their unwind tables were built",                    \
	  "programs run again have theirs; start the recording before the work")             \
	X(NO_ROOM, "in files whose unwind tables did not fit the unwind memory",             \
	  "raise --unwind-memory")                                                           \
	X(NO_CFI, "in code with neither unwind tables nor frame pointers",                   \
	  "build it with -fasynchronous-unwind-tables or -fno-omit-frame-pointer")           \
	X(NO_ROW, "in code its file's unwind tables do not cover (hand-written assembly)",   \
	  "nothing: that code keeps no frame pointers either")                               \
	X(JIT, "in anonymous code no runtime of ebprof walks (JIT compilers)",               \
	  "none yet: the runtime is not supported")                                          \
	X(NO_VMA, "at a return address outside every mapping (a corrupt or foreign stack)",  \
	  "nothing to do")                                                                   \
	X(EXITING, "of processes exiting, whose memory was being unmapped", "nothing to do") \
	X(STACK, "where the stack could not be read or a rule gave an impossible caller",    \
	  "nothing to do: -v counts them by reason")                                         \
	X(DEPTH, "deeper than the 256 frames (or 31 hand-overs) a stack keeps",              \
	  "nothing to do: the innermost frames are kept")                                    \
	X(RUNTIME, "by a runtime's walker (its own line says why)", "see that runtime's line")

enum cut_cause {
#define EBPROF_CUT_ENUM(id, what, remedy) CUT_##id,
	EBPROF_CUT_CAUSES(EBPROF_CUT_ENUM)
#undef EBPROF_CUT_ENUM
	    CUT__COUNT,
};

/* Per-CPU counters: every sample that BPF cannot deliver whole is counted here, and
 * userspace prints them (src/cli/record.c). A runtime's own failures are counted in
 * that runtime's own map (its walker's .bpf.c), printed by its userspace file. */
enum ebprof_counter {
	CTR_SAMPLES = 0,      /* perf events that reached the program */
	CTR_FILTERED,	      /* dropped by the -p / -- CMD process filter */
	CTR_RINGBUF_FULL,     /* no room in the ring buffer: the sample is lost */
	CTR_KSTACK_ERR,	      /* bpf_get_stack() failed for the kernel stack */
	CTR_BAD_FRAME,	      /* the unwinder computed an impossible caller: stack cut */
	CTR_FILTER_FULL,      /* a child of a profiled process did not fit the filter map */
	CTR_UNKNOWN_PID,      /* samples of processes without a description (no runtime) */
	CTR_UNKNOWN_MAPPING,  /* pc outside every mapping of a described process */
	CTR_NO_TABLE,	      /* a file without a usable table: frame-pointer step */
	CTR_NO_ROW,	      /* no CFI row covers pc */
	CTR_READ_FAULT,	      /* the user stack could not be read */
	CTR_NOTICES_LOST,     /* a notice did not fit the ring buffer */
	CTR_EVENTS,	      /* probe and tracepoint hits that reached a program */
	CTR_EVENTS_FILTERED,  /* hits dropped by the process filter */
	CTR_OFF_CPU_FULL,     /* a blocked thread did not fit off_cpu_pending: block lost */
	CTR_ALLOC_FREES_LOST, /* a free of a sampled block did not fit the ring buffer */
	CTR_TAIL_CALL_FAILED, /* a walker could not hand over (empty slot, budget spent) */
	CTR_TAIL_CALLS_OUT,   /* a stack needed more hand-overs than the budget: cut */
	CTR_RUNTIME_CUT,      /* a runtime's frames did not fit the record: some kept native */
	CTR_VMA_WALKS,	      /* pcs placed by the walker's own look-up of the kernel's VMAs */
	CTR_VMA_MISSED,	      /* ... that found no VMA (or none it could read) */
	CTR_FILE_UNKNOWN,     /* ... in a file without an entry in file_tables yet */
	CTR_EXIT_STACKS,      /* samples of an exit given the user stack of its start */
	CTR_EXIT_NO_MM,	      /* exits traced after their memory went (6.12 and older) */
	CTR_CUT_FIRST,	      /* CPU samples cut, by cause: CTR_CUT_FIRST + enum cut_cause */
	CTR__COUNT = CTR_CUT_FIRST + CUT__COUNT,
};

/* The walker chain (bpf/chain.h): slots of the program arrays every stack-collecting
 * program tail-calls through, one per walker. A runtime's id everywhere (mapping
 * markers, frames, the userspace registry) is its slot. Adding a runtime adds a line
 * before WALKER__COUNT; the chain holds at most 32 walkers (bit masks of runtimes). */
enum walker {
	WALKER_NATIVE = 0, /* CFI and frame-pointer unwinding; hands over at markers */
	WALKER_SUBMIT,	   /* ends every chain: sends the record or keeps it (off-CPU) */
	WALKER_PYTHON,	   /* CPython: eval-loop activations -> Python frames */
	WALKER_GO,	   /* Go: the running goroutine's pprof labels, after every walk */
	WALKER_HOTSPOT,	   /* HotSpot JVM: walks the code cache's frames in place */
	WALKER_V8,	   /* V8 (Node.js): walks the builtins' and JIT code's frames in place */
	WALKER_PHP,	   /* PHP: execute_ex activations -> PHP frames; opcache JIT code */
	WALKER_PERL,	   /* Perl: runops activations -> subs from the context stack */
	WALKER_RUBY,	   /* CRuby: VM activations -> Ruby frames; steps over YJIT's code */
	WALKER_BEAM, /* Erlang/BEAM: walks the JIT's code by the Erlang stack's return addresses */
	WALKER_DOTNET, /* .NET (CoreCLR): walks managed code's frames in place */
	WALKER__COUNT,
};

#endif
