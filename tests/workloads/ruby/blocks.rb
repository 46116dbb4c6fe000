# SPDX-License-Identifier: Apache-2.0
# Blocks passed to C methods for tests/kernel/ruby.sh: Array#each and Integer#times (a C
# method before 3.3, Ruby code in 3.3) each call a block that calls Blocks#work, which
# spins on one line. Usage: blocks.rb SECONDS
class Blocks
  ITEMS = (1..40).to_a

  def work(x)
    s = 0
    j = 0
    while j < 300; s += x * j; j += 1; end # WORK_LINE
    s
  end

  def with_each
    ITEMS.each { |x| work(x) } # EACH_LINE
  end

  def with_times
    40.times { |x| work(x) } # TIMES_LINE
  end

  def run(deadline)
    while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
      with_each
      with_times
    end
  end
end

Blocks.new.run(Process.clock_gettime(Process::CLOCK_MONOTONIC) + Float(ARGV[0]))
