%% SPDX-License-Identifier: Apache-2.0
%% The module tests/workloads/beam/chain.erl reloads while it runs (copied as
%% chain_LABEL_hot.erl): work/1 spins, called from outside the module each time so every
%% call runs the newest version.
-module(hot).
-export([work/1]).

work(0) ->
    ok;
work(K) ->
    work(K - 1). % HOT
