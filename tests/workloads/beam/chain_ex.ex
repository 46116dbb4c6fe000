# SPDX-License-Identifier: Apache-2.0
# The Elixir workload of tests/kernel/beam.sh, copied as chain_ex_LABEL.ex (module
# ChainExLABEL) per VM: main/1 starts a process that spins in outer -> middle -> leaf
# (none a tail call), then halts the VM after the seconds given. Its frames are named as
# the VM names the module's atom, 'Elixir.ChainExLABEL':leaf/3.
defmodule ChainEx do
  def main([secs]) do
    spawn(fn -> spin(0) end)
    Process.sleep(String.to_integer(secs) * 1000)
    System.halt(0)
  end

  def spin(n) do
    r = outer(n)
    spin(rem(r, 1000))
  end

  def outer(n) do
    r = middle(n + 1)
    r + 1
  end

  def middle(n) do
    r = leaf(n + 1, 20000, 0)
    r + 1
  end

  def leaf(_, 0, acc), do: acc
  # LEAF
  def leaf(n, k, acc), do: leaf(n, k - 1, rem(acc + n * k, 1_000_003))
end
