# SPDX-License-Identifier: Apache-2.0
# Garbage for tests/kernel/ruby.sh: Garbage#churn allocates short-lived arrays of strings
# in a loop, so the collector runs under it. Usage: gc.rb SECONDS
class Garbage
  def churn
    keep = nil
    2_000.times { keep = Array.new(50) { |i| "item #{i}" } } # CHURN_LINE
    keep
  end

  def run(deadline)
    churn while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
  end
end

Garbage.new.run(Process.clock_gettime(Process::CLOCK_MONOTONIC) + Float(ARGV[0]))
