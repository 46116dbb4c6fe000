# SPDX-License-Identifier: Apache-2.0
# Methods of every shape ebprof names, for tests/kernel/ruby.sh: a class method
# (Shapes.area), a module's method (Measure#scale, through include), a define_method
# method (Shapes#perimeter), and one whose environment holds $~ (Shapes#match_count), each
# spinning on one line. Usage: shapes.rb SECONDS
module Measure
  def scale(n)
    i = 0
    i += 1 while i < n # SCALE_LINE
    i
  end
end

class Shapes
  include Measure

  def self.area(n)
    i = 0
    i += 1 while i < n # AREA_LINE
    i
  end

  define_method(:perimeter) do |n|
    i = 0
    i += 1 while i < n # PERIMETER_LINE
    i
  end

  def match_count(n)
    i = 0
    i += 1 while i < n && "abc" =~ /b/ # MATCH_LINE
    i
  end

  def run(deadline)
    while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
      Shapes.area(300_000)
      scale(300_000)
      perimeter(300_000)
      match_count(10_000)
    end
  end
end

Shapes.new.run(Process.clock_gettime(Process::CLOCK_MONOTONIC) + Float(ARGV[0]))
