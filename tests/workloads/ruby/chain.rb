# SPDX-License-Identifier: Apache-2.0
# Plain Ruby workload for tests/kernel/ruby.sh: Chain#outer -> Chain#middle -> Chain#leaf,
# the leaf spinning on one line (its line is checked) that calls a C method, so YJIT saves
# the frame's pc there too. Usage: chain.rb SECONDS
class Chain
  def leaf(n)
    i = 0
    x = 0.0
    while i < n; x += Math.sqrt(i); i += 1; end # LEAF_LINE
    x
  end

  def middle(n)
    leaf(n) + 1
  end

  def outer(deadline)
    middle(20_000) while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
  end
end

Chain.new.outer(Process.clock_gettime(Process::CLOCK_MONOTONIC) + Float(ARGV[0]))
