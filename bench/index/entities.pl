#!/usr/bin/perl
# bench/index/entities.pl N [raw] - the indexing benchmark's N entities as COPY text: tablestore's
# (partition_key, row_key, properties), or with "raw" the jsonb table's (pk, rk, ts, etag, doc).
# Entity i: PartitionKey p<5 digits of i / 1000>, RowKey <6 digits of i % 1000>, and ten
# properties whose selective values match the same number of entities at every N:
#   Group   Int32   (i * 7919) % (N / 100): 100 entities per value (a permutation: 7919 is prime)
#   Rank    Int32   (i * 48271) % N: every value once
#   Score   Double  ((i * 104729) % (N / 10)) / 100: 10 entities per value
#   Email   String  c<i>@contoso.com: every value once
#   Name, City (500 values), Age (60), Active (half), Created (DateTime, i seconds after 2020), Balance
# bench/index/sdk_filters.mjs builds the same entities for Azurite.
use strict;
use warnings;
use POSIX qw(strftime);
my $n = shift // die "usage: entities.pl N [raw]\n";
my $raw = (shift // '') eq 'raw';
die "N must be a multiple of 100\n" if $n % 100;
my ($groups, $scores) = ($n / 100, $n / 10);
my $epoch = 1577836800;    # 2020-01-01T00:00:00Z
for my $i (0 .. $n - 1) {
	my $doc = sprintf('{"Name":"Customer %d","Email":"c%d@contoso.com","City":"City %d","Age":%d,"Group":%d,"Rank":%d,'
		. '"Score":%.2f,"Active":%s,"Created":"%s","Created@odata.type":"Edm.DateTime","Balance":1234.56}',
		$i, $i, $i % 500, 18 + $i % 60, ($i * 7919) % $groups, ($i * 48271) % $n, (($i * 104729) % $scores) / 100,
		$i % 2 ? 'true' : 'false', strftime('%Y-%m-%dT%H:%M:%SZ', gmtime($epoch + $i)));
	if ($raw) {
		# the raw side keeps plain JSON: the annotation is tablestore's
		$doc =~ s/,"Created\@odata.type":"Edm.DateTime"//;
		printf "p%05d\t%06d\t2026-01-01 00:00:00+00\tW/\"datetime'2026-01-01T00%%3A00%%3A00Z'\"\t%s\n", int($i / 1000), $i % 1000, $doc;
	} else {
		printf "p%05d\t%06d\t%s\n", int($i / 1000), $i % 1000, $doc;
	}
}
