/* SPDX-License-Identifier: Apache-2.0 */
/* The runtime registry: every language runtime ebprof unwinds (interpreters, JIT
 * runtimes, Go's labels) is one folder, src/interp/NAME/ (its struct runtime_ops and its
 * walker program), and one line in the table of runtime.c. The tracker, the session and its
 * summary, --help and ebprof check loop over the registry instead of naming a runtime;
 * ingest and the report reach runtimes only through the frame source the set fills
 * (profile/frame_source.h). */
#ifndef EBPROF_RUNTIME_H
#define EBPROF_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "loader/walkers.h"
#include "proc/proc.h"
#include "profile/frame_source.h"

struct arena;
struct bpf_images;
struct bpf_object;
struct elf_file;
struct label;
struct loader;
struct unw_proc;
struct user_frame;

/* A mapped file a runtime may claim (detect). fd and elf are valid for the call only. */
struct runtime_file {
	uint32_t file_id;
	const char *path; /* as the process named it */
	int fd;
	/* The file opened once for every runtime's detect (symbols, sections, segments:
	 * src/elf/elf_file.h); NULL when it is not an ELF file. */
	const struct elf_file *elf;
};

#define RUNTIME_MAX_MARKS 8

/* What a runtime claims in one process: address ranges for the walkers (enum
 * unw_mark), and whether its walker runs after every native walk of the process. */
struct runtime_marks {
	uint32_t n;
	bool always;
	struct {
		uint64_t start, end; /* absolute, [start, end) */
		uint8_t mark;	     /* enum unw_mark */
	} m[RUNTIME_MAX_MARKS];
};

/* What every runtime is given. */
struct runtime_env {
	struct proc_table *procs; /* files and mappings; its lock guards the file table */
	/* --runtimes: only these (comma-separated names or titles, or "none"), their
	 * walkers verified at start-up; NULL: EBPROF_RUNTIMES's, else every runtime. */
	const char *only;
};

/* What a runtime's walker needs of the kernel beyond ebprof's floor (5.10): ebprof check
 * says it, and a recording on a kernel without it leaves the runtime out with it. */
struct runtime_floor {
	/* Its walker is written with bpf_loop (5.17) only: no NAME_unrolled variant
	 * (loader/walkers.h). test_runtime_registry checks this against the object. */
	bool bpf_loop;
	/* What a recording without its walker lacks: "Java frames stay native". */
	const char *without;
};

struct runtime_ops {
	const char *name;    /* its name: log prefix, stats heading, EBPROF_RUNTIMES */
	const char *title;   /* the language or runtime as users name it: "Java", "Node.js" */
	uint32_t walker;     /* enum walker: its program array slot, its id everywhere */
	uint32_t frame_kind; /* enum frame_kind of the frames it names (profile/frame.h) */
	/* frame_kind's row in the table of frame kinds (frame_kind__info), when the kind
	 * is its own (past FRAME_UNKNOWN); a runtime whose frames are native has none. */
	struct frame_kind_info kind;
	struct runtime_floor floor;
	/* Its walker's chains pass inside the arm64 guest (make test-arm64): ebprof check
	 * says which runtimes are proven on arm64; the others run there, not yet proven. */
	bool arm64_proven;
	/* Its walker object's ELF image (the skeleton's), and the walker's base name
	 * (EBPROF_WALKER(fn) in src/interp/NAME/NAME.bpf.c). */
	const void *(*bpf_elf)(size_t *size);
	const char *bpf_walker;
	/* After load: finds its maps in obj by name. Returns 0 or -errno (the runtime is
	 * then left out, said once); *priv is passed to everything below. */
	int (*init)(const struct runtime_env *env, struct bpf_object *obj, void **priv);
	void (*free)(void *priv);
	/* Tracker thread (or start-up, for a command's files), once per mapped file:
	 * whether the file is this runtime's. */
	bool (*detect)(void *priv, const struct runtime_file *f);
	/* Optional, start-up: whether a command running exe (a real path) loads this
	 * runtime's file later, by dlopen, where the files guessed before exec (warm.h)
	 * cannot see it: java's launcher and libjvm.so. Its walker is then verified
	 * before the command runs, as for a file it detects. */
	bool (*launches)(const char *exe);
	/* Tracker thread, for a process mapping a file it detected (maps: the process's
	 * executable mappings): writes its BPF state for pid and says what it claims in
	 * marks. Called again whenever the mappings change. 0 or -errno (nothing claimed). */
	int (*describe)(void *priv, uint32_t pid, const struct proc_mapping *maps, uint32_t n,
			struct runtime_marks *marks);
	/* pid exited, or no longer maps the runtime: drop what is kept for it. */
	void (*forget)(void *priv, uint32_t pid);
	/* Ingest, while the process lives: turns one frame the walker sent into up to max
	 * profile frames (inlined code expands here), innermost first. Returns how many. */
	unsigned int (*ingest)(void *priv, uint32_t pid, const struct user_frame *uf,
			       struct frame *out, unsigned int max);
	/* Ingest, optional: the labels its walker sent for the sample (n frames flagged
	 * UF_LABEL), read into out (strings owned by the runtime, valid until its next
	 * call). Returns how many. */
	unsigned int (*labels)(void *priv, uint32_t pid, const struct user_frame *uf,
			       unsigned int n, struct label *out, unsigned int max);
	/* Report: the name of a frame ingest made: function, file and position apart, the
	 * strings in a, static, or the runtime's own (the report copies them). False when
	 * it cannot name f. */
	bool (*frame_symbol)(void *priv, const struct frame *f, struct arena *a,
			     struct frame_symbol *out);
	/* record's summary: what it described, read and could not (its own counters). */
	void (*print_stats)(void *priv, FILE *out);
};

struct runtime_set;

/* The runtimes a --runtimes list names (1 << registry index; "none": none). Returns 0,
 * or -EINVAL for a word that is no runtime's (said). */
int runtime_list__mask(const char *list, uint32_t *mask);
/* The runtimes of one session. Returns NULL with errno: ENOMEM, or EINVAL for a name
 * in env->only that is no runtime's (said). */
struct runtime_set *runtime_set__new(const struct runtime_env *env);
/* Before load: opens every runtime's walker object and adds it to the loader, its
 * walker enabled for the entry types in types. Returns 0 or -errno (logged). */
int runtime_set__prepare(struct runtime_set *rs, struct loader *l, chain_types types);
/* After load (which made the walkers' maps, not verified them: loader__defer): starts
 * each runtime (init). A runtime's walker is verified and installed in its program
 * array slot the first time a file it detects is found (runtime_set__describe, on the
 * set's verifier thread, or runtime_set__expect, at once), before any process is marked
 * for it; one that fails is said once and that runtime is off. l must outlive the set's
 * use and its verifier thread (runtime_set__stop_verifier). Returns 0. */
int runtime_set__start(struct runtime_set *rs, struct loader *l);
/* Start-up, before the tracker runs: a file a command is about to map (file_id as the
 * file table interned it, path, a descriptor valid for the call). The runtimes that
 * claim it get their walkers verified now, before the command runs. */
void runtime_set__expect(struct runtime_set *rs, uint32_t file_id, const char *path, int fd);
/* Start-up: the executable (a real path) a command is about to run: the runtimes whose
 * launches() says it loads them get their walkers verified now. */
void runtime_set__expect_command(struct runtime_set *rs, const char *exe);
/* Start-up: when the runtimes were named (runtime_env.only, EBPROF_RUNTIMES), every one
 * of them gets its walker verified now, so a process that starts later has its runtime's
 * frames from its first sample; otherwise nothing. */
void runtime_set__verify_named(struct runtime_set *rs);
void runtime_set__free(struct runtime_set *rs);

/* Tracker thread: lets every runtime that detects one of pid's files describe it, and
 * writes their claims into desc (mappings split at claimed ranges, markers, always).
 * A runtime whose walker is not verified yet has it verified on a thread of the set's
 * own (tens of milliseconds to seconds; see runtime_set__start) and does not describe
 * pid meanwhile: pid is handed to runtime_set__on_ready's function once the walker is
 * in its slot, to be described again. cancel (may be NULL) is the tracker's stop flag
 * (util/cancel.h): set before the runtimes describe pid, it gives -ECANCELED with
 * nothing of pid described; a verification asked and not begun is then skipped.
 * Returns the runtimes that claim one of pid's files (1 << walker), or -ECANCELED. */
int runtime_set__describe(struct runtime_set *rs, uint32_t pid, const struct proc_mapping *maps,
			  uint32_t n, struct unw_proc *desc, const bool *cancel);
/* Tracker thread: the runtimes that claim file_id (1 << walker), asking them (detect)
 * the first time; a process mapping such a file needs a description. */
uint32_t runtime_set__claims(struct runtime_set *rs, uint32_t file_id);
void runtime_set__forget(struct runtime_set *rs, uint32_t pid);
/* Called on the verifier thread, with no lock of the set held, for each process that
 * runtime_set__describe described without a runtime whose walker was then verified: it
 * is in its slot now. Not called for a walker that failed. */
typedef void (*runtime_ready_fn)(void *ctx, uint32_t pid);
/* Before the tracker runs: who is told of the processes to describe again. */
void runtime_set__on_ready(struct runtime_set *rs, runtime_ready_fn ready, void *ctx);
/* Whether a walker's verification is asked or running, or the processes that waited for
 * it are being handed over (runtime_ready_fn): once false, every one of them was. */
bool runtime_set__verifying(struct runtime_set *rs);
/* Stops the verifier thread: a verification not begun is skipped, the one running (which
 * cannot be interrupted) is waited for; no runtime_ready_fn call comes after. Once the
 * tracker is stopped, before the loader is freed; runtime_set__free does it too. */
void runtime_set__stop_verifier(struct runtime_set *rs);
/* The frame source (profile/frame_source.h) ingest and the report use for runtimes'
 * frames: each frame goes to the runtime that made it (runtime_ops.ingest, .labels,
 * .frame_symbol) and each kind's row comes from the registry. A frame of a runtime that
 * is not running ingests as one frame of kind FRAME_UNKNOWN. rs must outlive out's use. */
void runtime_set__frame_source(struct runtime_set *rs, struct frame_source *out);
void runtime_set__print_stats(const struct runtime_set *rs, FILE *out);

/* Adds the ELF image of every runtime's walker object to imgs (loader/objects.h), for
 * what start-up prepares for every object (the minimal CO-RE BTF). Returns 0 or -ENOSPC. */
int runtime_registry__images(struct bpf_images *imgs);
/* The i-th runtime of the registry (whether this session loads it or not), NULL past the
 * last: for what is said of every runtime (ebprof check, the table of frame kinds). */
const struct runtime_ops *runtime_registry__get(size_t i);
/* The row of a runtime's frame kind (runtime_ops.kind), NULL when no runtime has kind. */
const struct frame_kind_info *runtime_registry__kind(uint32_t kind);

/* Writes one claim into desc: the mappings overlapping [start, end) are split at its
 * bounds and the part inside gets runtime and mark. Returns 0, or -ENOSPC when desc
 * has no room for the split (the claim is then only partly made). Exposed for tests. */
int runtime_marks__apply(struct unw_proc *desc, uint64_t start, uint64_t end, uint8_t runtime,
			 uint8_t mark);

#endif
