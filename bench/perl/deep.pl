# SPDX-License-Identifier: Apache-2.0
# bench/perl.sh's workload: a Perl stack DEPTH frames deep (the main program, DEPTH - 2
# calls of down, spin), spinning in its innermost frame for SECONDS + EXTRA: the
# benchmark's window ends before SECONDS, and on a busy host its readings (bpftool) take
# seconds of their own, which EXTRA leaves room for.
# Usage: perl deep.pl EXTRA DEPTH SECONDS
use strict;
use warnings;
use Time::HiRes qw(time);

sub spin {
	my $deadline = shift;
	my $total = 0;
	while (time < $deadline) {
		$total += $_ * $_ % 7 for 1 .. 1000;
	}
	return $total;
}

sub down {
	my ($n, $deadline) = @_;
	return spin($deadline) if $n <= 1;
	return down($n - 1, $deadline) + 1;
}

my ($extra, $depth, $secs) = @ARGV;
down($depth - 2, time + $secs + $extra);
