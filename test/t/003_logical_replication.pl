# test/t/003_logical_replication.pl - logical replication: a tablestore table
# published to a second cluster that has the extension keeps the publisher's Timestamps and
# ETags - the initial copy and every later change - because the apply workers run with
# session_replication_role = replica, where the subscriber's stamp trigger does not fire. The
# subscriber's own writes are still stamped.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $pub = PostgreSQL::Test::Cluster->new('publisher');
$pub->init(allows_streaming => 'logical');
$pub->start;
my $sub = PostgreSQL::Test::Cluster->new('subscriber');
$sub->init;
$sub->start;

for my $node ($pub, $sub)
{
	$node->safe_psql('postgres', q{CREATE EXTENSION tablestore; SELECT tablestore.create_table('Repl');});
}
# rows before the subscription: they travel in the initial copy
$pub->safe_psql('postgres', q{
	SELECT tablestore.insert_entity('Repl', format('{"PartitionKey":"p%s","RowKey":"%s","n":%s}', i % 5, i, i)::tablestore.entity)
	FROM generate_series(1, 300) i;
	CREATE PUBLICATION repl FOR TABLE tablestore_data.repl;
});
$sub->safe_psql('postgres', "CREATE SUBSCRIPTION repl CONNECTION '" . $pub->connstr . " dbname=postgres' PUBLICATION repl");
$sub->wait_for_subscription_sync($pub, 'repl');

# changes after it: they stream
$pub->safe_psql('postgres', q{
	SELECT tablestore.merge_entity('Repl', format('{"PartitionKey":"p%s","RowKey":"%s","m":true}', i % 5, i)::tablestore.entity)
	FROM generate_series(1, 300, 2) i;
	SELECT tablestore.delete_entity('Repl', 'p' || (i % 5), i::text) FROM generate_series(3, 300, 10) i;
	SELECT tablestore.execute_batch('Repl', (SELECT jsonb_agg(jsonb_build_object('op', 'insert', 'entity',
		jsonb_build_object('PartitionKey', 'batch', 'RowKey', i::text, 'v', i))) FROM generate_series(1, 100) i));
	UPDATE tablestore_data.repl SET properties = properties OPERATOR(tablestore.||) '{"sql":1}'::tablestore.entity WHERE partition_key = 'p1';
});
$pub->wait_for_catchup('repl');

my $rows = q{SELECT string_agg(format('%s|%s|%s|%s|%s', partition_key, row_key, "timestamp", etag, properties), E'\n'
	ORDER BY partition_key, row_key) FROM tablestore_data.repl};
my $want = $pub->safe_psql('postgres', $rows);
is($sub->safe_psql('postgres', $rows), $want,
	'the subscriber has every entity with the publisher\'s Timestamp and ETag');
is($sub->safe_psql('postgres', q{SELECT count(*) FROM tablestore_data.repl}), '370', 'all 370 entities arrived');

# the subscriber's own writes are stamped by its trigger as usual
$sub->safe_psql('postgres', q{ALTER SUBSCRIPTION repl DISABLE});
my $etag = $sub->safe_psql('postgres', q{SELECT tablestore.merge_entity('Repl', '{"PartitionKey":"batch","RowKey":"1","local":1}')});
isnt($etag, $pub->safe_psql('postgres', q{SELECT etag FROM tablestore_data.repl WHERE partition_key = 'batch' AND row_key = '1'}),
	'a local write on the subscriber gets a new ETag of its own');
is($sub->safe_psql('postgres', q{SELECT etag FROM tablestore_data.repl WHERE partition_key = 'batch' AND row_key = '1'}), $etag,
	'which is the stored one');

$sub->stop;
$pub->stop;
done_testing();
