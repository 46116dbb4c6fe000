// SPDX-License-Identifier: Apache-2.0
// cflags: -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls
// ldflags: -ldl
/* A function in a library loaded with dlopen after the process started: main ->
 * call_plugin -> plugin_outer -> plugin_leaf (in libnofp_plugin.so, next to the binary).
 * Usage: nofp_dlopen SECONDS */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef void (*plugin_fn)(double);

__attribute__((noinline)) void call_plugin(plugin_fn fn, double secs)
{
	fn(secs);
}

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	void *lib;

	if (n < 0)
		return 1;
	path[n] = '\0';
	strcpy(strrchr(path, '/') + 1, "libnofp_plugin.so");
	usleep(200000); /* let the profiler describe the process before the library exists */
	lib = dlopen(path, RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	call_plugin((plugin_fn)dlsym(lib, "plugin_outer"), argc > 1 ? atof(argv[1]) : 2);
	return 0;
}
