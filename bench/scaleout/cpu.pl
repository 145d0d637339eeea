# bench/scaleout/cpu.pl - CPU per operation on each process of a distributed table (issue 15,
# doc/scale-out.md), run by bench/scaleout/run.sh.
#
# Starts 1 coordinator and 3 nodes (PostgreSQL::Test::Cluster, loopback) and runs each workload
# with pgbench (one client, a fixed number of transactions) three ways in one run:
#   single      an ordinary table on node 1 (one node, no distribution)
#   coordinator the same calls on the coordinator's distributed table (8 shards over 3 nodes)
#   routed      the calls sent straight to the node that owns the partition (route()), as
#               tablestore-gateway or a client that routes would send them
# and point reads through tablestore-gateway: to one node, through the coordinator, and routed by
# the gateway itself (--node).
# CPU is read from /proc: each cluster's postmaster with its reaped children (cutime, cstime)
# plus its live processes, before and after, so backends that exit are counted. Each way runs
# SCALEOUT_ROUNDS times (3), the ways alternating; the round with the median total is kept. The figure is
# milliseconds of CPU per operation on the coordinator and on the nodes; the ratios are against
# single. A throughput model for N nodes follows from them (printed, and written to $OUT).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Time::HiRes qw(time sleep);

our $N = $ENV{SCALEOUT_OPS} // 20000;      # transactions per workload and way (a fifth for batches)
my $OUT = $ENV{SCALEOUT_OUT} // 'scaleout.md';
my $HZ = `getconf CLK_TCK` + 0 || 100;

my @nodes = map {
	my $n = PostgreSQL::Test::Cluster->new("bnode$_");
	$n->init;
	$n->append_conf('postgresql.conf', "log_statement = none\nlog_min_duration_statement = -1\nshared_buffers = 256MB\n");
	$n->start;
	$n
} 1 .. 3;
my $coord = PostgreSQL::Test::Cluster->new('bcoord');
$coord->init;
$coord->append_conf('postgresql.conf', "log_statement = none\nlog_min_duration_statement = -1\nshared_buffers = 256MB\n");
$coord->start;
my $su = $coord->safe_psql('postgres', 'SELECT current_user');

$_->safe_psql('postgres', 'CREATE EXTENSION tablestore') for ($coord, @nodes);
my $servers = "CREATE EXTENSION postgres_fdw;\n";
for my $i (0 .. 2)
{
	my ($host, $port) = ($nodes[$i]->host, $nodes[$i]->port);
	$servers .= "CREATE SERVER n" . ($i + 1) . " FOREIGN DATA WRAPPER postgres_fdw OPTIONS "
	  . "(host '$host', port '$port', dbname 'postgres', extensions 'tablestore');\n"
	  . "CREATE USER MAPPING FOR PUBLIC SERVER n" . ($i + 1) . " OPTIONS (user '$su', password_required 'false');\n";
}
$coord->safe_psql('postgres', $servers);

# the data: 20 partitions of 500 entities, in an ordinary table on node 1 and a distributed one
my $fill = q{SELECT count(tablestore.insert_entity('%s', format('{"PartitionKey":"p%%s","RowKey":"%%s","Name":"entity %%s","Age":%%s}',
	i %% 20, lpad(i::text, 6, '0'), i, i %% 90)::tablestore.entity)) FROM generate_series(1, 10000) i};
$nodes[0]->safe_psql('postgres', "SELECT tablestore.create_table('Solo');" . sprintf($fill, 'Solo'));
$coord->safe_psql('postgres', "SELECT tablestore.create_table('Dist'); SELECT tablestore.distribute_table('Dist', ARRAY['n1','n2','n3'], 8);
	SET tablestore.allow_multi_node_writes = on;" . sprintf($fill, 'Dist'));
my $owner = $coord->safe_psql('postgres', q{SELECT server FROM tablestore.route('Dist', 'p1')});
my ($routed) = grep { "n" . ($_ + 1) eq $owner } 0 .. 2;
$routed = $nodes[$routed];
$_->safe_psql('postgres', 'VACUUM ANALYZE') for ($coord, @nodes);

my $batch = join ',', map { sprintf('{"op":"upsert_replace","entity":{"PartitionKey":"p1","RowKey":"b%03d","v":%d}}', $_, $_) } 1 .. 100;
my %scripts = (
	'point read' => q{SELECT etag FROM tablestore.get_entity('TBL', 'p1', '000001');},
	'insert' => qq{\\set r random(1, 999999999999)\nSELECT tablestore.insert_entity('TBL', ('{"PartitionKey":"p1","RowKey":"i' || :r || '_' || :client_id || '","v":1}')::tablestore.entity);},
	'100-entity batch' => qq{SELECT tablestore.execute_batch('TBL', '[$batch]'::text);},
	'partition page' => q{SELECT octet_length(tablestore.query_page_json('TBL', 'PartitionKey eq ''p1''', NULL, 100)::text);},
);
my @order = ('point read', 'insert', '100-entity batch', 'partition page');

# a cluster's CPU in clock ticks: the postmaster, its reaped children and its live processes
sub cluster_ticks
{
	my ($c) = @_;
	my $pm = (split /\n/, slurp_file($c->data_dir . '/postmaster.pid'))[0];
	my $total = 0;
	opendir my $d, '/proc' or die;
	for my $pid (grep { /^\d+$/ } readdir $d)
	{
		open my $f, '<', "/proc/$pid/stat" or next;
		my $stat = <$f>;
		close $f;
		my @s = split / /, substr($stat, rindex($stat, ')') + 2);
		# fields from state (3): ppid is s[1], utime s[11], stime s[12], cutime s[13], cstime s[14]
		if ($pid == $pm) { $total += $s[11] + $s[12] + $s[13] + $s[14] }
		elsif ($s[1] == $pm) { $total += $s[11] + $s[12] }
	}
	closedir $d;
	return $total;
}

sub run_way
{
	my ($cluster, $table, $name) = @_;
	# a batch is ten times a single call's work: a fifth of the transactions (CPU is counted in
	# clock ticks, so every way needs enough of them)
	local $N = $name eq '100-entity batch' ? int($N / 5) + 1 : $N;
	my $file = "$PostgreSQL::Test::Utils::tmp_check/bench.sql";
	(my $sql = $scripts{$name}) =~ s/TBL/$table/g;
	open my $f, '>', $file or die;
	print $f "$sql\n";
	close $f;
	my @all = ($coord, @nodes);
	sleep 0.3;
	my @before = map { cluster_ticks($_) } @all;
	my $t0 = time;
	system('pgbench', '-n', '-f', $file, '-c', '1', '-t', $N, '-h', $cluster->host, '-p', $cluster->port, 'postgres') == 0
	  or die "pgbench failed for $name on $table";
	my $wall = time - $t0;
	sleep 0.5;	# the backends exit and are reaped
	my @after = map { cluster_ticks($_) } @all;
	my @ms = map { ($after[$_] - $before[$_]) * 1000 / $HZ / $N } 0 .. $#all;
	return { coord => $ms[0], nodes => $ms[1] + $ms[2] + $ms[3], wall => $wall * 1000 / $N };
}

my (%r, @lines);
my $ROUNDS = $ENV{SCALEOUT_ROUNDS} // 3;
sub median
{
	my @v = sort { $a->{coord} + $a->{nodes} <=> $b->{coord} + $b->{nodes} } @_;
	return $v[$#v / 2];
}
for my $name (@order)
{
	my @ways = ([ single => $nodes[0], 'Solo' ], [ coordinator => $coord, 'Dist' ], [ routed => $routed, 'Dist' ]);
	# a warm-up of each way, then rounds that alternate the ways; the median round of each way
	for my $way (@ways)
	{
		local $N = int($N / 10) + 1;
		run_way($way->[1], $way->[2], $name);
	}
	my %runs;
	for my $round (1 .. $ROUNDS)
	{
		push @{ $runs{ $_->[0] } }, run_way($_->[1], $_->[2], $name) for @ways;
	}
	$r{$name}{$_} = median(@{ $runs{$_} }) for keys %runs;
}

push @lines, "| workload | single node: CPU ms/op | via coordinator: coordinator + nodes ms/op | ratio | routed to the node: ms/op | ratio | wall ms/op single / coordinator / routed |",
  "|---|---|---|---|---|---|---|";
for my $name (@order)
{
	my ($s, $c, $g) = @{ $r{$name} }{qw(single coordinator routed)};
	my $single = $s->{coord} + $s->{nodes};
	my $via = $c->{coord} + $c->{nodes};
	my $rt = $g->{coord} + $g->{nodes};
	my $ratio = sub { $single > 0 ? sprintf('%.2fx', $_[0] / $single) : 'n/a' };
	push @lines, sprintf("| %s | %.3f | %.3f + %.3f = %.3f | %s | %.3f | %s | %.3f / %.3f / %.3f |",
		$name, $single, $c->{coord}, $c->{nodes}, $via, $ratio->($via), $rt, $ratio->($rt), $s->{wall}, $c->{wall}, $g->{wall});
	$r{$name}{model} = [ $single, $c->{coord}, $c->{nodes}, $rt ];
}
# Point reads through tablestore-gateway: to one node's table, through the coordinator, and with
# the nodes given (--node: the gateway sends the read to the owning node). One keep-alive client
# (bench/gateway/point_read.c) for SCALEOUT_GW_SECONDS; CPU of the clusters and of the gateway.
my $point_read = $ENV{SCALEOUT_POINT_READ};
if ($point_read && -x $point_read)
{
	my $secs = $ENV{SCALEOUT_GW_SECONDS} // 5;
	my $dsn = sub { sprintf('host=%s port=%s dbname=postgres', $_[0]->host, $_[0]->port) };
	my @node_args = map { ('--node', "n" . ($_ + 1) . '=' . $dsn->($nodes[$_])) } 0 .. 2;
	my $gw_ticks = sub {
		open my $f, '<', "/proc/$_[0]/stat" or return 0;
		my $stat = <$f>;
		close $f;
		my @s = split / /, substr($stat, rindex($stat, ')') + 2);
		return $s[11] + $s[12];	# utime, stime: every thread of the process
	};
	my @gw_rows;
	for my $way ([ 'single node', $dsn->($nodes[0]), [], 'Solo' ], [ 'through the coordinator', $dsn->($coord), [], 'Dist' ],
		[ 'routed by the gateway (--node)', $dsn->($coord), \@node_args, 'Dist' ])
	{
		my ($label, $conn, $extra, $table) = @$way;
		my $port = PostgreSQL::Test::Cluster::get_free_port();
		my $pid = fork();
		if ($pid == 0)
		{
			open STDOUT, '>', '/dev/null';
			open STDERR, '>', '/dev/null';
			exec('tablestore-gateway', '--dsn', $conn, '--port', $port, '--log', 'quiet', '--threads', '1', '--pool', '1', @$extra) or exit 1;
		}
		sleep 1;
		my $path = "/devstoreaccount1/$table(PartitionKey='p1',RowKey='000001')";
		system("$point_read $port \"$path\" 1 1 >/dev/null 2>&1");	# warm-up: connections, prepared statements
		sleep 0.3;
		my @all = ($coord, @nodes);
		my @before = map { cluster_ticks($_) } @all;
		my $g0 = $gw_ticks->($pid);
		my $out = `$point_read $port "$path" $secs 1 2>&1`;
		my $g1 = $gw_ticks->($pid);
		kill 'TERM', $pid;
		waitpid $pid, 0;
		sleep 0.5;
		my @after = map { cluster_ticks($_) } @all;
		my ($n) = $out =~ /^(\d+) requests/m or die "point_read: $out";
		my $db = 0;
		$db += $after[$_] - $before[$_] for 0 .. $#all;
		push @gw_rows, [ $label, $db * 1000 / $HZ / $n, ($g1 - $g0) * 1000 / $HZ / $n, $out =~ /p50 ([\d.]+)/ ? $1 : 0 ];
	}
	my $base = $gw_rows[0][1];
	push @lines, '', 'Point reads through tablestore-gateway (one keep-alive client; CPU ms per read):', '',
	  '| way | databases (coordinator + nodes) | ratio | gateway | p50 ms |', '|---|---|---|---|---|';
	push @lines, sprintf('| %s | %.3f | %s | %.3f | %.3f |', $_->[0], $_->[1], $base > 0 ? sprintf('%.2fx', $_->[1] / $base) : 'n/a',
		$_->[2], $_->[3]) for @gw_rows;
}
push @lines, '', 'Throughput model (operations per second per core of each kind, from the CPU above; a model, not a measurement):', '',
  '| workload | one node | N nodes, routed | N nodes through one coordinator |', '|---|---|---|---|';
for my $name (@order)
{
	my ($single, $cc, $cn, $rt) = @{ $r{$name}{model} };
	my $rate = sub { $_[0] > 0 ? sprintf('%.0f', 1000 / $_[0]) : 'n/a' };
	push @lines, sprintf("| %s | %s/s per core | N x %s/s per node core | min(%s/s per coordinator core, N x %s/s per node core) |",
		$name, $rate->($single), $rate->($rt), $rate->($cc), $rate->($cn));
}
open my $o, '>', $OUT or die "$OUT: $!";
print $o join("\n", @lines), "\n";
close $o;
print join("\n", @lines), "\n";
$coord->stop;
$_->stop for @nodes;
