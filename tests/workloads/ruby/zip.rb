# SPDX-License-Identifier: Apache-2.0
# A C extension under Ruby frames for tests/kernel/ruby.sh: Zip#compress calls zlib's
# Zlib::Deflate.deflate, whose C code runs libz's deflate. Usage: zip.rb SECONDS
require 'zlib'

class Zip
  DATA = Array.new(100_000) { |i| (i * 7919 % 61 + 32).chr }.join.freeze

  def compress
    Zlib::Deflate.deflate(DATA, Zlib::BEST_COMPRESSION) # DEFLATE_LINE
  end

  def run(deadline)
    compress while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
  end
end

Zip.new.run(Process.clock_gettime(Process::CLOCK_MONOTONIC) + Float(ARGV[0]))
