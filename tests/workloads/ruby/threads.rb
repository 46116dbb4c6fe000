# SPDX-License-Identifier: Apache-2.0
# Two threads with different chains for tests/kernel/ruby.sh, running at the same time:
# A spins in Ruby (holding the GVL), B compresses with zlib, which releases the GVL while
# libz runs, so B is sampled on a CPU while A holds the lock. Each thread's samples must
# carry its own chain. Usage: threads.rb SECONDS
require 'zlib'

class Spinner
  def a_leaf(n)
    i = 0
    i += 1 while i < n # A_LEAF_LINE
    i
  end

  def a_main(deadline)
    a_leaf(50_000) while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
  end
end

class Packer
  # Long enough that a deflate outlasts the GVL's 100 ms time slice.
  DATA = Array.new(2_000_000) { |i| (i * 7919 % 61 + 32).chr }.join.freeze

  def b_leaf
    Zlib::Deflate.deflate(DATA, Zlib::BEST_COMPRESSION) # B_LEAF_LINE
  end

  def b_main(deadline)
    b_leaf while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
  end
end

deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + Float(ARGV[0])
[Thread.new { Spinner.new.a_main(deadline) }, Thread.new { Packer.new.b_main(deadline) }].each(&:join)
