# test/t/006_node_outage.pl - a node of a distributed table goes down and comes back, under the
# gateway (issue 25 item 5, issue 27 item 11): 1 coordinator and 3 nodes, and two gateways, one
# routing one-partition calls straight to the nodes (--node), one sending every call through the
# coordinator.
#
# While node 2 is down (killed: an immediate shutdown, its connections dropped without a goodbye):
# every call on its partitions - the first right after the crash too, on connections the gateway
# and the coordinator still hold - is 503 ServerBusy with Retry-After, never a 500 with libpq's
# text; the other nodes' partitions keep working. When node 2 is back, the gateway serves its
# partitions again within a second.
#
# While the coordinator is down for longer than the gateway's shard map lives (10 s), the routed
# gateway keeps serving every partition from the last map it read (issue 31 item 9), also after a
# query naming two partitions that a node refuses with TSX03 (only a refusal of the call's own
# shard sends that shard to the coordinator); once it is back, a shard moved meanwhile is found
# where it is (the old node refuses with TSX03). While the coordinator hangs (SIGSTOP: it accepts
# connections and never answers), routed calls are answered too: the map's refresh is bounded.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/lib";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use HTTP::Tiny;
use JSON::PP;
use Time::HiRes qw(time sleep);
use Test::More;
use TsMoves;

my $env = TsMoves::start_clusters(db => 'outage');
my ($coord, $db) = ($env->{coord}, $env->{db});
my $node2 = $env->{node}{n2};
sub c { return $coord->safe_psql($db, $_[0]) }

c(q{SELECT tablestore.create_table('Orders'); SELECT tablestore.distribute_table('Orders', ARRAY['n1', 'n2', 'n3'], 6);
	SET tablestore.allow_multi_node_writes = on;
	SELECT count(tablestore.insert_entity('Orders', format('{"PartitionKey":"p%s","RowKey":"r%s"}', i % 30, i)::tablestore.entity))
	FROM generate_series(1, 300) i;});
my %pk_on = map { split /\|/ } split /\n/, c(q{SELECT DISTINCT ON (server) server, 'p' || i FROM generate_series(0, 29) i,
	tablestore.route('Orders', 'p' || i) ORDER BY server, i});
my ($p1, $p2, $p3) = @pk_on{qw(n1 n2 n3)};
ok(defined $p1 && defined $p2 && defined $p3, "a partition on each node ($p1, $p2, $p3)");

my $routed = TsMoves::start_gateway($env);
my $through = TsMoves::start_gateway($env, nodes => 0);
my $http = TsMoves::http();

# every kind of one-partition call, and a partition query, for a partition
my $seq = 0;
sub calls
{
	my ($gw, $pk) = @_;
	$seq++;
	my $q = '$filter=' . TsMoves::url_escape("PartitionKey eq '$pk'");
	return (
		[ 'point read', TsMoves::request($http, $gw, 'GET', "/Orders(PartitionKey='$pk',RowKey='r1')") ],
		[ 'insert', TsMoves::request($http, $gw, 'POST', '/Orders', encode_json({ PartitionKey => $pk, RowKey => "new$seq" }),
			Prefer => 'return-no-content') ],
		[ 'upsert', TsMoves::request($http, $gw, 'PATCH', "/Orders(PartitionKey='$pk',RowKey='up$seq')", encode_json({ v => 1 })) ],
		[ 'partition query', TsMoves::request($http, $gw, 'GET', "/Orders()?$q") ]);
}

# warm every connection: both gateways' pools and the coordinator's to each node
for my $gw ($routed, $through)
{
	for my $pk ($p1, $p2, $p3)
	{
		my @c = calls($gw, $pk);
		ok(!(grep { $_->[1]{status} >= 300 && $_->[1]{status} != 404 } @c), "before the crash: calls on $pk answered")
		  or diag(join ', ', map { "$_->[0] $_->[1]{status}" } @c);
	}
}

$node2->stop('immediate');
for my $round (1 .. 2)
{
	for my $gw ([ 'routed', $routed ], [ 'through the coordinator', $through ])
	{
		my @c = calls($gw->[1], $p2);
		for my $call (@c)
		{
			my ($what, $res) = @$call;
			my $code = $res->{headers}{'x-ms-error-code'} // '';
			ok($res->{status} == 503 && $code eq 'ServerBusy' && defined $res->{headers}{'retry-after'},
				"node 2 down, $gw->[0], " . ($round == 1 ? 'first calls' : 'again') . ": $what is 503 ServerBusy with Retry-After")
			  or diag("$res->{status} $code " . substr($res->{content} // '', 0, 300));
		}
		for my $pk ($p1, $p3)
		{
			my @o = calls($gw->[1], $pk);
			ok(!(grep { $_->[1]{status} >= 300 && $_->[1]{status} != 404 } @o), "node 2 down, $gw->[0]: the other nodes' partition $pk is served")
			  or diag(join ', ', map { "$_->[0] $_->[1]{status} " . substr($_->[1]{content} // '', 0, 120) } @o);
		}
	}
}

# back: served again within a second of the node accepting connections
$node2->start;
my $back = time;
for my $gw ([ 'routed', $routed ], [ 'through the coordinator', $through ])
{
	my ($res, $waited);
	for (1 .. 100)
	{
		$res = TsMoves::request($http, $gw->[1], 'GET', "/Orders(PartitionKey='$p2',RowKey='r1')");
		last if $res->{status} != 503;
		sleep 0.05;
	}
	$waited = time - $back;
	ok(($res->{status} == 200 || $res->{status} == 404) && $waited < 1.5,
		sprintf("node 2 back, %s: served again after %.2f s", $gw->[0], $waited))
	  or diag("$res->{status} " . substr($res->{content} // '', 0, 200));
	$back = time;
}

# ---------- the coordinator down for longer than the gateway's map lives (issue 31 item 9) ----------
# The routed gateway keeps routing by the last map it read: every node is up, so every
# one-partition call is served; through the coordinator they are 503 meanwhile.
for my $pk ($p1, $p2, $p3)
{
	my @c = calls($routed, $pk);
	ok(!(grep { $_->[1]{status} >= 300 && $_->[1]{status} != 404 } @c), "before the coordinator stops: calls on $pk answered");
}
$coord->stop('fast');
my $down = time;
sleep 0.5;
my ($served, $refused, @bad) = (0, 0);
# past the map's 10 s lifetime, and on
while (time - $down < 14)
{
	for my $pk ($p1, $p2, $p3)
	{
		for my $call (calls($routed, $pk))
		{
			my ($what, $res) = @$call;
			if ($res->{status} < 300 || $res->{status} == 404) { $served++ }
			else { $refused++; push @bad, sprintf('%.1f s: %s on %s: %s %s', time - $down, $what, $pk, $res->{status}, substr($res->{content} // '', 0, 120)) if @bad < 5 }
		}
	}
	sleep 0.5;
}
note(sprintf('coordinator down for %.1f s: %d routed calls served, %d refused', time - $down, $served, $refused));
ok($served > 0 && $refused == 0, "the coordinator down for longer than the map's lifetime: every routed call is served from the last map ($served)")
  or diag(join "\n", @bad);
my $res = TsMoves::request($http, $through, 'GET', "/Orders(PartitionKey='$p1',RowKey='r1')");
is($res->{status}, 503, 'through the coordinator the calls are 503 meanwhile');
# a query naming two partitions: the node of the first refuses it (TSX03: a query across shards),
# which is no refusal of that shard: its partitions are still served from the last map
$res = TsMoves::request($http, $routed, 'GET', '/Orders()?$filter=' . TsMoves::url_escape("PartitionKey eq '$p1' and PartitionKey eq '$p2'"));
note("a query naming $p1 and $p2 while the coordinator is down: $res->{status}");
my @reads = map { TsMoves::request($http, $routed, 'GET', "/Orders(PartitionKey='$p1',RowKey='r1')")->{status} } 1 .. 5;
ok(!grep({ $_ != 200 && $_ != 404 } @reads), "after it, $p1 is still served from the last map: @reads (before the fix: 503 until the coordinator was back)");
$coord->start;

# ---------- the coordinator hangs (SIGSTOP) for longer than the map lives ----------
my @hung;
END { kill 'CONT', @hung if @hung }
for my $pk ($p1, $p2, $p3) { TsMoves::request($http, $routed, 'GET', "/Orders(PartitionKey='$pk',RowKey='r1')") }
# the coordinator's processes: its postmaster and every descendant
@hung = ($coord->{_pid});
for (my $i = 0; $i < @hung; $i++) { push @hung, map { s/\s+//gr } grep { /\d/ } split /\n/, `ps -o pid= --ppid $hung[$i]` }
kill 'STOP', @hung;
my $stopped = time;
sleep 10.5;
my $hang_http = HTTP::Tiny->new(timeout => 15, keep_alive => 1);
my ($answered, $slowest, @late) = (0, 0);
while (time - $stopped < 18)
{
	for my $pk ($p1, $p2, $p3)
	{
		my $t0 = time;
		my $r = TsMoves::request($hang_http, $routed, 'GET', "/Orders(PartitionKey='$pk',RowKey='r1')");
		$slowest = time - $t0 if time - $t0 > $slowest;
		if ($r->{status} == 200 || $r->{status} == 404) { $answered++ } elsif (@late < 10) { push @late, "$pk: $r->{status}" }
	}
	sleep 0.2;
}
kill 'CONT', @hung;
@hung = ();
# the gateway's connections to the coordinator are made again (its pool backs off up to 800 ms)
for (1 .. 50) { last if TsMoves::request($http, $routed, 'GET', '/Tables')->{status} == 200; sleep 0.1 }
note(sprintf('the coordinator hung for %.1f s: %d routed reads answered, the slowest in %.2f s', time - $stopped, $answered, $slowest));
ok($answered > 0 && !@late, "with the coordinator hung (not down), routed reads are answered from the last map (before the fix: none in 15 s)")
  or diag(join ', ', @late);

# back: the map is read again; a shard moved since is found where it is now
my $s1 = c("SELECT shard FROM tablestore.route('Orders', '$p1')");
c("CALL tablestore.move_shard('Orders', $s1, 'n3')");
my @after = calls($routed, $p1);
ok(!(grep { $_->[1]{status} >= 300 && $_->[1]{status} != 404 } @after), "the coordinator back, shard $s1 moved to n3: calls on $p1 answered")
  or diag(join ', ', map { "$_->[0] $_->[1]{status} " . substr($_->[1]{content} // '', 0, 120) } @after);
sleep 1.2;		# the gateway reads the map again a second after a node refused a shard
$res = TsMoves::request($http, $routed, 'POST', '/Orders', encode_json({ PartitionKey => $p1, RowKey => 'after' }), Prefer => 'return-no-content');
is($res->{status}, 204, 'an insert after the move answered');
is($env->{node}{n3}->safe_psql($db, "SELECT count(*) FROM tablestore_data.orders WHERE partition_key = '$p1' AND row_key = 'after'"), '1',
	'and is on the node that holds the shard now');

my $gwlog = join '', map { slurp_file($_->{log}) } $routed, $through;
unlike($gwlog, qr/ 500 /, 'neither gateway answered a 500');
TsMoves::stop_gateway($_) for $routed, $through;
TsMoves::stop_clusters($env);
done_testing();
