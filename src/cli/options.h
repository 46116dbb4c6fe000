/* SPDX-License-Identifier: Apache-2.0 */
/* Moved to util/options.h, so export/ and alloc/ need not include cli/. Kept only for
 * cli/session.c, which the runtime-registry work is changing at the same time: delete
 * this file once session.c includes util/options.h. */
#ifndef EBPROF_CLI_OPTIONS_H
#define EBPROF_CLI_OPTIONS_H

#include "util/options.h"

#endif
