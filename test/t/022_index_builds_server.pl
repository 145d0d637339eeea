# test/t/022_index_builds_server.pl - index builds leave the server's other background workers
# room, whatever the databases do (review 3 of the index merge, finding 4; doc/reliability.md,
# "Index builds"; src/index/index_worker.c). A server with max_worker_processes = 4 (one taken by the
# logical replication launcher) and three databases, as three accounts of a gateway:
#
#  - builds held (each database's own snapshot keeps its build waiting) in a1 (two tables) and
#    a2: at most tablestore.max_index_builds_total, at most half of max_worker_processes (2),
#    run in the server, one per database (a database takes at most half of the slots);
#  - a3's change meanwhile is queued with no worker, no "no background worker slot" in the log,
#    and a parallel query of a3 still gets a worker;
#  - once a build ends, a3's next call on its table (no indexing_progress) starts its change.
# Every wait is a poll bounded by the framework's timeout; nothing depends on how long a step took.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('ibuilds');
$node->init;
$node->append_conf('postgresql.conf', "max_worker_processes = 4\n");
$node->start;
my $policy = '{"excludedPaths":[{"path":"/Note/?"}]}';
for my $db ('a1', 'a2', 'a3')
{
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql($db, q{CREATE EXTENSION tablestore});
	for my $t ($db eq 'a1' ? ('Big', 'Big2') : ('Big'))
	{
		$node->safe_psql($db, qq{SELECT tablestore.create_table('$t');
			INSERT INTO tablestore_data.@{[lc $t]} (partition_key, row_key, properties)
			SELECT 'p' || (i % 50), lpad(i::text, 6, '0'), format('{"Code":%s,"Note":"%s"}', i, repeat('x', 30))::tablestore.entity
			FROM generate_series(1, 20000) i;
			VACUUM ANALYZE tablestore_data.@{[lc $t]};});
	}
}
my $log_start = -s $node->logfile;

my $workers = q{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'tablestore index worker'};
sub hold_snapshot
{
	my ($db) = @_;
	my $h = $node->background_psql($db);
	$h->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	$h->query_safe('SELECT count(*) FROM pg_class');
	return $h;
}

my %snap = map { $_ => hold_snapshot($_) } ('a1', 'a2');
# two changes in a1, each in its own transaction (each launches a worker if a slot is free)
$node->safe_psql('a1', qq{SELECT tablestore.set_indexing_policy('$_', '$policy')}) for ('Big', 'Big2');
$node->safe_psql('a2', qq{SELECT tablestore.set_indexing_policy('Big', '$policy')});
$node->poll_query_until('postgres', qq{SELECT count(*) >= 2 FROM pg_stat_activity WHERE backend_type = 'tablestore index worker'
		AND query LIKE 'CREATE INDEX CONCURRENTLY%' AND wait_event = 'virtualxid'})
  or die 'the builds of a1 and a2 do not wait';
$node->safe_psql('a3', qq{SELECT tablestore.set_indexing_policy('Big', '$policy')});
is($node->safe_psql('postgres', qq{SELECT string_agg(datname || ' ' || n, ', ' ORDER BY datname) FROM
		(SELECT datname, count(*) AS n FROM pg_stat_activity WHERE backend_type = 'tablestore index worker' GROUP BY datname) w}),
	'a1 1, a2 1', 'two index workers in the server (half of max_worker_processes), one per database');
is($node->safe_psql('a3', q{SELECT state FROM tablestore.index_builds WHERE table_name = 'Big'}), 'queued',
	"a3's change is queued, waiting for a slot");
my $plan = $node->safe_psql('a3', q{SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0;
	SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
	EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM tablestore_data.big});
my ($launched) = $plan =~ /Workers Launched: (\d+)/;
ok(defined $launched && $launched >= 1, "a parallel query meanwhile gets a worker (launched: @{[$launched // 'none']})")
  or diag($plan);
is(scalar(grep { /no background worker slot is free/ } split /\n/, slurp_file($node->logfile, $log_start)), 0,
	'no launch found every background worker slot taken');

# a1's builds end; its worker leaves; a3's next call starts a3's change
$snap{a1}->query_safe('COMMIT');
$snap{a1}->quit;
$node->safe_psql('a1', q{CALL tablestore.wait_for_indexing('Big', '2 minutes'); CALL tablestore.wait_for_indexing('Big2', '2 minutes')});
$node->poll_query_until('a1', qq{$workers AND datname = 'a1'}, '0') or die "a1's worker stays";
$node->safe_psql('a3', q{SELECT count(*) FROM tablestore.query_entities('Big', 'Code eq 7')});
ok($node->poll_query_until('a3', q{SELECT count(*) = 0 FROM tablestore.index_builds}),
	"a3's change is started by its next call on the table, once a slot is free");
is($node->safe_psql('a3', q{SELECT tablestore.indexing_progress('Big')}), '100', "and a3's policy is applied");
$snap{a2}->query_safe('COMMIT');
$snap{a2}->quit;
$node->safe_psql('a2', q{CALL tablestore.wait_for_indexing('Big', '2 minutes')});
is($node->safe_psql('a2', q{SELECT tablestore.indexing_progress('Big')}), '100', "a2's too");
$node->stop;
done_testing();
