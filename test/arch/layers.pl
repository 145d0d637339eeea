#!/usr/bin/perl
# test/arch/layers.pl - "each layer calls only the ones below it" (doc/architecture.md), checked on
# the built objects: file A calls file B when A's object uses a symbol B's object defines.
#
#   perl test/arch/layers.pl PROGRAM OBJECT...     e.g. extension src/*/*.o src/core/*/*.o
#
# A file's layer is its folder under src/ (src/index/entity_gin.o is in layer "index"); the order of
# each program's layers, bottom up, is src/layers.conf's line "PROGRAM: layer layer ...". A
# file may call files of its own layer and of layers below it. Fails, naming each call, when a file
# calls a layer above its own, when a file's folder is not a layer of the program, or when files of
# one layer call each other in a cycle.
use strict;
use warnings;
use File::Basename qw(dirname);

my ($program, @objects) = @ARGV;
die "usage: layers.pl PROGRAM OBJECT...\n" unless $program && @objects;

# the layers of the program, bottom up
my $conf = $ENV{TS_LAYERS_CONF} // dirname(__FILE__) . '/../../src/layers.conf';
my @order;
open(my $cf, '<', $conf) or die "$conf: $!\n";
while (<$cf>)
{
	next if /^\s*(#|$)/;
	@order = split ' ', $1 if /^\s*\Q$program\E:\s*(.*)$/;
}
close $cf;
die "$conf names no layers for $program\n" unless @order;
my %rank;
@rank{@order} = (0 .. $#order);

# a file's layer: the folder after src/ (and after src/<program>/ for the programs' own folders)
sub layer_of
{
	my ($file) = @_;
	my @parts = split m{/}, $file;
	shift @parts while @parts && $parts[0] ne 'src';
	shift @parts;
	pop @parts;
	for my $n (reverse 1 .. scalar @parts)
	{
		my $l = join('/', @parts[0 .. $n - 1]);
		return $l if exists $rank{$l};
	}
	return join('/', @parts) || '.';
}

my (%defines, %uses);
for my $o (@objects)
{
	(my $file = $o) =~ s/\.(gw\.|cp\.)?o$/.c/;
	die "$o: no such object (build first)\n" unless -f $o;
	$uses{$file} //= {};		# every file counts, also one that calls nothing
	open(my $nm, '-|', 'nm', $o) or die "nm $o: $!\n";
	while (<$nm>)
	{
		if (/^\s+U (\S+)$/) { $uses{$file}{$1} = 1 }
		elsif (/^[0-9a-f]+ [TDRBC] (\S+)$/) { $defines{$1} = $file }
	}
	close $nm;
}

my (%edges, @problems);
for my $file (sort keys %uses)
{
	my $from = layer_of($file);
	push @problems, "$file: its folder ($from) is not a layer of $program (src/layers.conf)"
	  unless exists $rank{$from};
	for my $sym (sort keys %{ $uses{$file} })
	{
		my $to = $defines{$sym};
		next unless defined $to && $to ne $file;
		$edges{$file}{$to} = 1;
		my $tl = layer_of($to);
		next unless exists $rank{$from} && exists $rank{$tl};
		push @problems, "$file (layer $from) calls up into $to (layer $tl): $sym"
		  if $rank{$tl} > $rank{$from};
	}
}

# cycles among files (Tarjan's strongly connected components)
my ($index, @stack, %on, %idx, %low, @cycles) = (0);
my $visit;
$visit = sub {
	my ($v) = @_;
	$idx{$v} = $low{$v} = $index++;
	push @stack, $v;
	$on{$v} = 1;
	for my $w (sort keys %{ $edges{$v} || {} })
	{
		if (!exists $idx{$w}) { $visit->($w); $low{$v} = $low{$w} if $low{$w} < $low{$v} }
		elsif ($on{$w}) { $low{$v} = $idx{$w} if $idx{$w} < $low{$v} }
	}
	if ($low{$v} == $idx{$v})
	{
		my @c;
		while (1) { my $w = pop @stack; $on{$w} = 0; push @c, $w; last if $w eq $v }
		push @cycles, [ sort @c ] if @c > 1;
	}
};
$visit->($_) for grep { !exists $idx{$_} } sort keys %uses;
push @problems, 'cycle: ' . join(' <-> ', @$_) for @cycles;

my $nfiles = scalar keys %uses;
if (@problems)
{
	print "$_\n" for @problems;
	print "# $program: ", scalar(@problems), " problem(s) among $nfiles files in ", scalar(@order), " layers\n";
	exit 1;
}
print "# $program: $nfiles files, every call within its layer or down (", join(' < ', @order), "), no cycle\n";
exit 0;
