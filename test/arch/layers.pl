#!/usr/bin/perl
# test/arch/layers.pl - "each layer calls only the ones below it" (doc/architecture.md), checked on
# the built objects: file A depends on file B when A's object uses a symbol B's object defines.
# Any cycle among the files of one program (two files that call each other, or a longer loop) is
# reported and fails the check.
#
#   perl test/arch/layers.pl NAME OBJECT...     e.g. extension src/*.o src/core/*.o
use strict;
use warnings;

my ($program, @objects) = @ARGV;
die "usage: layers.pl NAME OBJECT...\n" unless $program && @objects;

my (%defines, %uses);
for my $o (@objects) {
	(my $file = $o) =~ s/\.(gw\.|cp\.)?o$/.c/;
	open(my $nm, '-|', 'nm', $o) or die "nm $o: $!\n";
	while (<$nm>) {
		if (/^\s+U (\S+)$/) { $uses{$file}{$1} = 1 }
		elsif (/^[0-9a-f]+ [TDRBC] (\S+)$/) { $defines{$1} = $file }
	}
	close $nm;
}

# the graph: file -> files it calls
my %edges;
for my $file (keys %uses) {
	for my $sym (keys %{ $uses{$file} }) {
		my $to = $defines{$sym};
		$edges{$file}{$to} = 1 if defined $to && $to ne $file;
	}
}

# strongly connected components (Tarjan): every component of more than one file is a cycle
my ($index, @stack, %on, %idx, %low, @cycles) = (0);
my $visit;
$visit = sub {
	my ($v) = @_;
	$idx{$v} = $low{$v} = $index++;
	push @stack, $v;
	$on{$v} = 1;
	for my $w (sort keys %{ $edges{$v} || {} }) {
		if (!exists $idx{$w}) { $visit->($w); $low{$v} = $low{$w} if $low{$w} < $low{$v} }
		elsif ($on{$w}) { $low{$v} = $idx{$w} if $idx{$w} < $low{$v} }
	}
	if ($low{$v} == $idx{$v}) {
		my @c;
		while (1) { my $w = pop @stack; $on{$w} = 0; push @c, $w; last if $w eq $v }
		push @cycles, [sort @c] if @c > 1;
	}
};
$visit->($_) for grep { !exists $idx{$_} } sort keys %uses;

my $nfiles = scalar keys %uses;
if (@cycles) {
	for my $c (@cycles) {
		print "cycle in $program: ", join(' <-> ', @$c), "\n";
		for my $a (@$c) {
			for my $b (@$c) {
				next if $a eq $b || !$edges{$a}{$b};
				my @syms = sort grep { ($defines{$_} // '') eq $b } keys %{ $uses{$a} };
				print "    $a calls $b: ", join(', ', @syms[0 .. ($#syms < 3 ? $#syms : 3)]), "\n";
			}
		}
	}
	print "# $program: ", scalar(@cycles), " cycle(s) among $nfiles files\n";
	exit 1;
}
print "# $program: no cycle among $nfiles files\n";
exit 0;
