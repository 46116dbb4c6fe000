%% SPDX-License-Identifier: Apache-2.0
%% bench/beam.sh's workload: one process DEPTH Erlang frames deep (deep/1 calls itself,
%% not as a tail call) spinning in spin/2 for SECS seconds, then the VM halts.
-module(deep).
-export([main/1]).

main([Depth, Secs]) ->
    spawn(fun() -> deep(list_to_integer(Depth)) end),
    timer:sleep(list_to_integer(Secs) * 1000),
    erlang:halt(0).

deep(0) ->
    spin(0, 0);
deep(N) ->
    R = deep(N - 1),
    R + 1.

spin(K, Acc) ->
    spin(K + 1, (Acc + K) rem 1000003).
