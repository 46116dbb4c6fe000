/* SPDX-License-Identifier: Apache-2.0 */
/* ebprof's version: printed by `ebprof version` and sent as the OTLP scope's version. */
#ifndef EBPROF_VERSION_H
#define EBPROF_VERSION_H

#define EBPROF_VERSION "0.1.0"

#endif
