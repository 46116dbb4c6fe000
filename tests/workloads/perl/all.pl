# SPDX-License-Identifier: Apache-2.0
# The Perl scenarios of tests/kernel/perl.sh, one after another, each for SECS seconds of
# its own CPU time (so each gets as many samples however busy the host is):
# three named subs (a chain), a comparator inside sort { }, List::Util::reduce with a
# Perl block calling Digest::SHA::sha256_hex, a sub called from a string eval, a sub of
# another package, an anonymous sub, an overloaded + whose handler enters an eval (called
# back from C, then S_docatch's nested loop), a named sort sub run by Perl_runops_debug
# (Devel::Peek::runops_debug: the loop perl -D and debugging modules run), a sub in a thread of its own (ithreads: an
# interpreter of its own) while the main thread waits. Every leaf spins on the line its
# "# NAME" comment marks. The process names itself perl-LABEL, so one recording tells
# versions apart.
# Usage: perl all.pl LABEL SECS
use strict;
use warnings;
use threads;
use Digest::SHA qw(sha256_hex);
use List::Util qw(reduce);
use Devel::Peek ();

my ($label, $secs) = @ARGV;
$0 = "perl-$label";

sub cpu { return (times)[0] }

sub leaf { my $s = 0; for my $i (1 .. 2000) { $s += $i * $i } return $s }    # LEAF
sub middle { return leaf() + 1 }
sub outer  { return middle() + 1 }
sub run_chain { my $until = shift; outer() while cpu() < $until }

sub weight { my $x = shift; my $w = 0; $w += ($x * $_) % 7 for 1 .. 40; return $w }    # WEIGHT
sub sorter { my @l = map { ($_ * 7919) % 1000 } 1 .. 200; my @s = sort { weight($a) <=> weight($b) } @l; return $s[0] }    # SORT
sub run_sort { my $until = shift; sorter() while cpu() < $until }

my $pad = 'p' x 8000;
sub digest { my ($x, $y) = @_; return sha256_hex($x . $y . $pad) }    # DIGEST
sub fold { my $r = reduce { digest($a, $b) } map { "x$_" } 1 .. 100; return $r }    # FOLD
sub run_reduce { my $until = shift; fold() while cpu() < $until }

sub in_eval { my $s = 0; $s += $_ for 1 .. 3000; return $s }    # IN_EVAL
sub run_eval { my $until = shift; eval 'in_eval() while cpu() < $until; 1' or die $@ }    # EVAL

package Foo;
sub bar { my $s = 0; $s += $_ % 3 for 1 .. 3000; return $s }    # BAR

package main;
sub run_pkg { my $until = shift; Foo::bar() while cpu() < $until }

my $anon = sub { my $s = 0; $s += $_ ^ 5 for 1 .. 3000; return $s };    # ANON
sub run_anon { my $until = shift; $anon->() while cpu() < $until }

package Num;
use overload '+' => \&Num::add;
sub new { return bless { v => $_[1] }, $_[0] }
sub weigh { my $s = 0; $s += $_ for 1 .. 3000; return $s }    # WEIGH
sub add { my ($x) = @_; eval { 1 }; weigh(); return Num->new($x->{v} + 1) }    # ADD

package main;
sub run_overload { my $until = shift; my $n = Num->new(0); $n = $n + 1 while cpu() < $until }

sub dweight { my $x = shift; my $w = 0; $w += ($x * $_) % 5 for 1 .. 40; return $w }    # DWEIGHT
sub by_dweight { return dweight($a) <=> dweight($b) }    # BY_DWEIGHT
sub dsorter { my @l = map { ($_ * 7919) % 1000 } 1 .. 200; my @s = sort by_dweight @l; return $s[0] }    # DSORT
sub run_debug {
	my $until = shift;
	Devel::Peek::runops_debug(1);    # the loops started from now on
	dsorter() while cpu() < $until;
	Devel::Peek::runops_debug(0);
}

sub in_thread { my $s = 0; $s += $_ * 3 for 1 .. 3000; return $s }    # IN_THREAD
sub thread_body { my $until = shift; in_thread() while cpu() < $until; return 0 }
sub run_thread { my $until = shift; threads->create(\&thread_body, $until)->join }

my @runs = (\&run_chain, \&run_sort, \&run_reduce, \&run_eval, \&run_pkg, \&run_anon,
	\&run_overload, \&run_debug, \&run_thread);
for my $run (@runs) { $run->(cpu() + $secs) }    # MAIN
