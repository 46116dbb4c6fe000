/* SPDX-License-Identifier: Apache-2.0 */
/* `ebprof agent`: continuous whole-system profiling, exported to an OpenTelemetry
 * collector as OTLP Profiles every report interval. */
#ifndef EBPROF_AGENT_H
#define EBPROF_AGENT_H

/* Returns the process exit status: 0 success, 1 runtime failure, 2 usage error. */
int cmd_agent(int argc, char **argv);

#endif
