/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* What userspace tells the in-kernel Python unwinder about one CPython process (map
 * pid_to_python), and how a Python frame travels in a sample's user stack. Shared by
 * python.bpf.c and python.c; fixed-width and pointer-free. */
#ifndef EBPROF_PYTHON_PROC_H
#define EBPROF_PYTHON_PROC_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* A Python frame in struct user_frame (file_id UF_RUNTIME_FILE(WALKER_PYTHON)): addr
 * holds the code object's address in its low 48 bits (user addresses on x86-64 fit 47)
 * and the low 16 bits of its co_firstlineno above them, a tag that tells a code object
 * from another one later allocated at the same address; pad's data bits hold the
 * instruction index (code units from the first instruction). */
#define PY_ADDR_MASK ((1ull << 48) - 1)
#define PY_TAG_SHIFT 48

/* The Python walker's own counters (map python_counters). */
enum py_counter {
	PY_CTR_NO_THREAD,  /* eval loop on the stack, no PyThreadState for the thread */
	PY_CTR_READ_FAULT, /* a Python frame could not be read: Python frames cut */
	PY_CTR__COUNT,
};

/* How frames are linked and what ends one activation of the eval loop. */
enum py_layout {
	PY_LAYOUT_NONE = 0,
	PY_LAYOUT_FRAMEOBJ_LASTI_BYTES, /* 3.9: PyFrameObject per activation, f_lasti in bytes */
	PY_LAYOUT_FRAMEOBJ,		/* 3.10: the same, f_lasti in code units */
	PY_LAYOUT_IFRAME_ENTRY,		/* 3.11: _PyInterpreterFrame chain, is_entry ends it */
	PY_LAYOUT_IFRAME_SHIM,		/* 3.12+: a frame owned by the C stack ends it */
};

#define PY_NO_OFFSET 0xffff
#define PY_OWNED_BY_CSTACK 3 /* _PyInterpreterFrame.owner of the eval loop's entry shim */
#define PY_FRAME_READ 128    /* bytes of a frame read at once: every field used lies there */
/* PyThreadState entries searched for the sampled thread, once per thread (the result is
 * cached): with bpf_loop a server's thousand threads, unrolled (< 5.17) what the verifier
 * takes. */
#define PY_MAX_THREADS 1024
#define PY_MAX_THREADS_UNROLLED 64
#define PY_EVAL_RANGES 2 /* _PyEval_EvalFrameDefault and its .cold part */

/* Byte offsets inside CPython's structures, per version (python_offsets.c or
 * _Py_DebugOffsets). All of them are below PY_FRAME_READ for the frame fields. */
struct py_offsets {
	__u16 interp_head;  /* _PyRuntimeState: interpreters.head */
	__u16 threads_head; /* PyInterpreterState: the first PyThreadState */
	__u16 tstate_next;  /* PyThreadState.next */
	__u16 tstate_id;    /* native_thread_id (3.11+) or thread_id, pthread_self() (3.9, 3.10) */
	__u16 tstate_frame; /* frame (3.9, 3.10), cframe (3.11, 3.12), current_frame (3.13) */
	__u16 cframe_frame; /* _PyCFrame.current_frame, or PY_NO_OFFSET */
	__u16 frame_back;   /* f_back or previous */
	__u16 frame_code;   /* f_code or f_executable */
	__u16 frame_instr;  /* f_lasti (int), prev_instr or instr_ptr (pointer) */
	__u16 frame_owner;  /* 3.11+ */
	__u16 frame_entry;  /* 3.11: is_entry */
	__u16 code_first;   /* 3.11+: co_code_adaptive, the first code unit */
	__u16 code_lineno;  /* co_firstlineno */
	__u16 pad;
};

struct py_proc {
	__u64 eval_start[PY_EVAL_RANGES]; /* absolute, [start, end); 0 when unused */
	__u64 eval_end[PY_EVAL_RANGES];
	__u64 runtime;	     /* absolute address of _PyRuntime */
	__u32 layout;	     /* enum py_layout */
	__u32 tid_is_fsbase; /* tstate_id holds pthread_self(), the thread's fs base */
	struct py_offsets off;
};

#endif
