#!/usr/bin/perl
# bench/scale/entities.pl N - the scaling run's N entities as COPY text (partition_key, row_key,
# properties): the entities of bench/compare, with five-digit partition numbers.
use strict;
use warnings;
my $n = shift // die "usage: entities.pl N\n";
for my $i (0 .. $n - 1) {
	printf "p%05d\t%06d\t{\"Name\":\"Customer %d\",\"Email\":\"c%d\@contoso.com\",\"City\":\"Berlin\",\"Country\":\"DE\","
		. "\"Age\":%d,\"Orders\":17,\"Score\":12.25,\"Balance\":1234.56,\"Active\":true,\"Vip\":false}\n",
		int($i / 1000), $i % 1000, $i, $i, 18 + $i % 60;
}
