# SPDX-License-Identifier: Apache-2.0
# Garbage for tests/kernel/ruby.sh: Garbage#churn allocates short-lived arrays of strings
# (each one's bytes malloc'd) in a loop beside a large live set, so the collector runs
# under it often and long. Usage: gc.rb SECONDS
class Garbage
  # Live objects every full collection marks again.
  LIVE = Array.new(200_000) { |i| "live #{i}" }

  def churn
    keep = nil
    2_000.times { keep = Array.new(50) { |i| "item #{i}" * 8 } } # CHURN_LINE
    keep
  end

  def run(deadline)
    churn while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
  end
end

Garbage.new.run(Process.clock_gettime(Process::CLOCK_MONOTONIC) + Float(ARGV[0]))
