# bench/scaleout/move.pl - how long a shard move takes, and how long calls on other shards wait
# meanwhile (issue 25, doc/scale-out.md), run by `bash bench/scaleout/run.sh move`.
#
# 1 coordinator and 3 nodes (test/t/lib/TsMoves.pm); a table of 3 shards with MOVE_ENTITIES
# entities (100 000) spread over them; one shard moved from its node to another, twice, while
# pgbench calls get_entity through the coordinator (200 a second) and straight to a node on other
# shards, and while one client writes to the moving shard through the coordinator. Prints each
# move's duration and the calls' maximum and 99th-percentile latency during the moves.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../../test/t/lib", "$FindBin::RealBin/lib";
use PostgreSQL::Test::Utils;
use IPC::Run;
use Time::HiRes qw(time sleep);
use TsMoves;

my $N = $ENV{MOVE_ENTITIES} // 100000;
my $OUT = $ENV{MOVE_OUT} // 'move.md';
my $env = TsMoves::start_clusters(db => 'bench');
my ($coord, $db) = ($env->{coord}, $env->{db});
$coord->safe_psql($db, qq{SELECT tablestore.create_table('Big'); SELECT tablestore.distribute_table('Big', ARRAY['n1', 'n2', 'n3'], 3);
	SET tablestore.allow_multi_node_writes = on;
	INSERT INTO tablestore_data.big SELECT 'p' || (i % 300), lpad(i::text, 8, '0'), now(), '',
		format('{"Name":"entity %s","Age":%s,"Note":"%s"}', i, i % 90, repeat('x', 200))::tablestore.entity FROM generate_series(1, $N) i;
	VACUUM ANALYZE tablestore_data.big;});
my %shard_of = map { ("p$_" => $coord->safe_psql($db, "SELECT shard FROM tablestore.route('Big', 'p$_')")) } 0 .. 299;
my ($moving) = grep { $shard_of{$_} == 0 } sort keys %shard_of;
my ($other) = grep { $shard_of{$_} != 0 } sort keys %shard_of;
my $other_node = $coord->safe_psql($db, "SELECT server FROM tablestore.route('Big', '$other')");
my $other_rk = $coord->safe_psql($db, "SELECT min(row_key) FROM tablestore_data.big WHERE partition_key = '$other'");
my $tmp = $PostgreSQL::Test::Utils::tmp_check;
my @lines = ("Moving shard 0 of 3 ($N entities of ~250 bytes in the table, about " . int($N / 3) . " in the shard), twice:", '',
	'| move | seconds | calls through the coordinator on another shard: max / p99 ms | calls straight to a node on another shard: max / p99 ms |',
	'|---|---|---|---|');
for my $round (1 .. 2)
{
	my $from = $coord->safe_psql($db, 'SELECT server FROM tablestore.route(\'Big\', \'' . $moving . '\')');
	my ($to) = grep { $_ ne $from } qw(n1 n2 n3);
	open my $f, '>', "$tmp/get.sql" or die;
	print $f "SELECT etag FROM tablestore.get_entity('Big', '$other', '$other_rk');\n";
	close $f;
	open $f, '>', "$tmp/write.sql" or die;
	print $f "\\set r random(1, 1000000000)\nSELECT tablestore.upsert_entity('Big', ('{\"PartitionKey\":\"$moving\",\"RowKey\":\"w' || :r || '\"}')::tablestore.entity);\n";
	close $f;
	unlink glob("$tmp/lat_*");
	# pgbench in one-second runs (a run's log is written when it ends) until the move is over
	unlink "$tmp/stop";
	my @pg = map {
		my ($name, $node, $script, $rate) = @$_;
		IPC::Run::start([ 'bash', '-c', sprintf('i=0; while [ ! -f %s/stop ]; do i=$((i+1)); pgbench -n -c 1 -T 1 -R %d -f %s/%s -l '
			. '--log-prefix=%s/lat_%s_$i -h %s -p %s %s >/dev/null 2>&1; done', $tmp, $rate, $tmp, $script, $tmp, $name,
			$node->host, $node->port, $db) ])
	} ([ 'coord', $coord, 'get.sql', 200 ], [ 'node', $env->{node}{$other_node}, 'get.sql', 200 ], [ 'writer', $coord, 'write.sql', 100 ]);
	sleep 2;
	my $t0 = time;
	$coord->safe_psql($db, "CALL tablestore.move_shard('Big', 0, '$to', '30 min')");
	my $secs = time - $t0;
	sleep 1;
	open my $stop, '>', "$tmp/stop" or die;
	close $stop;
	$_->finish for @pg;
	my $lat = sub {
		my @l = TsMoves::pgbench_latencies(glob("$tmp/lat_$_[0]_*"));
		return @l ? sprintf('%.1f / %.1f', $l[-1] * 1000, $l[ int(0.99 * $#l) ] * 1000) : 'n/a';
	};
	push @lines, sprintf('| %s -> %s | %.1f | %s | %s |', $from, $to, $secs, $lat->('coord'), $lat->('node'));
}
my @left = TsMoves::leftovers($env, 'big');
push @lines, '', @left ? 'left on the nodes: ' . join('; ', @left) : 'nothing left on the nodes after the moves';
open my $o, '>', $OUT or die "$OUT: $!";
print $o join("\n", @lines), "\n";
close $o;
TsMoves::stop_clusters($env);
