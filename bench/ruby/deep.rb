# SPDX-License-Identifier: Apache-2.0
# bench/ruby.sh's workload: a Ruby stack DEPTH frames deep (recursion; <main>, the downs
# and spin, at least 3), spinning in its innermost frame for SECONDS.
# Usage: deep.rb DEPTH SECONDS
def spin(deadline)
  total = 0
  while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
    i = 0
    while i < 1000; total += i * i % 7; i += 1; end
  end
  total
end

def down(n, deadline)
  return spin(deadline) if n <= 1

  down(n - 1, deadline) + 1
end

down(Integer(ARGV[0]) - 2, Process.clock_gettime(Process::CLOCK_MONOTONIC) + Float(ARGV[1]))
