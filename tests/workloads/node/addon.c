// SPDX-License-Identifier: Apache-2.0
/* A native addon for tests/kernel/node.sh, through Node-API (a C ABI every Node since 10
 * keeps): repeat(fn, n) calls the JavaScript function fn n times from C, so native
 * frames sit between JavaScript frames. Built by the test against the Node's own
 * headers; no libc calls, so one build runs in every root. */
#include <node_api.h>

/* Not inlined: the frame between the JavaScript ones must be this function's. */
__attribute__((noinline)) static napi_value addon_repeat_calls(napi_env env, napi_value fn,
							       int64_t n)
{
	napi_value global, result = NULL;

	if (napi_get_global(env, &global) != napi_ok)
		return NULL;
	for (int64_t i = 0; i < n; i++)
		if (napi_call_function(env, global, fn, 0, NULL, &result) != napi_ok)
			return NULL;
	return result;
}

static napi_value repeat(napi_env env, napi_callback_info info)
{
	napi_value argv[2];
	size_t argc = 2;
	int64_t n = 0;

	if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2 ||
	    napi_get_value_int64(env, argv[1], &n) != napi_ok)
		return NULL;
	return addon_repeat_calls(env, argv[0], n);
}

static napi_value init(napi_env env, napi_value exports)
{
	napi_value fn;

	if (napi_create_function(env, "repeat", NAPI_AUTO_LENGTH, repeat, NULL, &fn) != napi_ok ||
	    napi_set_named_property(env, exports, "repeat", fn) != napi_ok)
		return NULL;
	return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
