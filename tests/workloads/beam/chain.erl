%% SPDX-License-Identifier: Apache-2.0
%% The Erlang workload of tests/kernel/beam.sh: tests/kernel/beam.sh copies it as
%% chain_LABEL.erl (module chain_LABEL), one per VM it runs, so every VM's frames name
%% their own module. main/1 starts two processes that each spin in outer -> middle ->
%% leaf (none a tail call), one on each of the first two schedulers (each process is
%% bound to one by spawn_opt's {scheduler, N}, an option the VM's own test suites use;
%% the first has less else to run, as the reductions of leaf/3 are cheaper than a BIF's), one that calls erlang:term_to_binary/1 (a BIF) between Erlang
%% frames, one that calls crypto:hash/2 (a NIF) when the VM has crypto, two that call
%% chain_LABEL_hot:work/1 while another loads that module again every 200 ms, then halts
%% the VM after the seconds given.
-module(chain).
-export([main/1]).

main([Secs]) ->
    [spawn_opt(fun() -> spin(0) end, [{scheduler, S}]) || S <- [1, 2]],
    spawn_opt(fun() -> encode_loop(0) end, [{scheduler, 2}]),
    case code:ensure_loaded(crypto) of
        {module, crypto} ->
            spawn_opt(fun() -> hash_loop(binary:copy(<<"ebprof">>, 2000)) end, [{scheduler, 1}]);
        _ ->
            ok
    end,
    Hot = list_to_atom(atom_to_list(?MODULE) ++ "_hot"),
    [spawn_opt(fun() -> hot_loop(Hot) end, [{scheduler, S}]) || S <- [1, 2]],
    spawn(fun() -> reload_loop(Hot) end),
    timer:sleep(list_to_integer(Secs) * 1000),
    erlang:halt(0).

spin(N) ->
    R = outer(N),
    spin(R rem 1000).

outer(N) ->
    R = middle(N + 1),
    R + 1.

middle(N) ->
    R = leaf(N + 1, 20000, 0),
    R + 1.

leaf(_, 0, Acc) ->
    Acc;
leaf(N, K, Acc) ->
    leaf(N, K - 1, (Acc + N * K) rem 1000003). % LEAF

encode_loop(N) ->
    B = encode(N),
    encode_loop((N + byte_size(B)) rem 1000).

encode(N) ->
    B = erlang:term_to_binary(lists:seq(N, N + 200)), % ENCODE
    B.

hash_loop(B) ->
    H = hash(B),
    hash_loop(<<H/binary, B:(byte_size(B) - 8)/binary>>).

hash(B) ->
    H = crypto:hash(md5, B), % HASH
    binary:part(H, 0, 8).

hot_loop(Hot) ->
    Hot:work(100000),
    hot_loop(Hot).

%% A new version of the module each time the old one is no longer running.
reload_loop(Hot) ->
    {Hot, Bin, File} = code:get_object_code(Hot),
    case code:soft_purge(Hot) of
        true -> code:load_binary(Hot, File, Bin);
        false -> ok
    end,
    timer:sleep(200),
    reload_loop(Hot).
