%% SPDX-License-Identifier: Apache-2.0
%% bench/beam.sh's workload: one process DEPTH Erlang frames deep (deep/1 calls itself,
%% not as a tail call) spinning in spin/2 for SECS seconds, then the VM halts. DEPTH
%% followed by "bif" ("50bif"): spin/2 calls erlang:term_to_binary/1 (a BIF) each turn,
%% whose samples the BEAM walker walks from the stack pointer the JIT saved.
-module(deep).
-export([main/1]).

main([Depth, Secs]) ->
    {N, Mode} = string:to_integer(Depth),
    spawn(fun() -> deep(N, Mode =:= "bif") end),
    timer:sleep(list_to_integer(Secs) * 1000),
    erlang:halt(0).

deep(0, Bif) ->
    spin(0, 0, Bif);
deep(N, Bif) ->
    R = deep(N - 1, Bif),
    R + 1.

spin(K, Acc, false) ->
    spin(K + 1, (Acc + K) rem 1000003, false);
spin(K, Acc, true) ->
    B = erlang:term_to_binary(lists:seq(K rem 100, 200)),
    spin(K + 1, (Acc + byte_size(B)) rem 1000003, true).
