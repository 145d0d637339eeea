# test/t/002_streaming_standby.pl - physical replication: a standby made with
# pg_basebackup and streaming replication holds byte-identical entities after a mixed load
# (inserts, merges, replaces, upserts, deletes, batches, plain SQL), and serves reads.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION tablestore;
	SELECT tablestore.create_table('Before');
	SELECT tablestore.insert_entity('Before', format('{"PartitionKey":"p%s","RowKey":"%s","n":%s}', i % 7, i, i)::tablestore.entity)
	FROM generate_series(1, 500) i;
});
$primary->backup('base');    # pg_basebackup
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->start;

# a mixed load after the backup, on the table copied by it and on a new one
$primary->safe_psql('postgres', q{
	SELECT tablestore.create_table('After');
	SELECT tablestore.merge_entity('Before', format('{"PartitionKey":"p%s","RowKey":"%s","m":"x"}', i % 7, i)::tablestore.entity)
	FROM generate_series(1, 500, 3) i;
	SELECT tablestore.update_entity('Before', format('{"PartitionKey":"p%s","RowKey":"%s","r":1.5}', i % 7, i)::tablestore.entity)
	FROM generate_series(2, 500, 5) i;
	SELECT tablestore.delete_entity('Before', 'p' || (i % 7), i::text) FROM generate_series(4, 500, 11) i;
	SELECT tablestore.upsert_entity('After', format('{"PartitionKey":"q","RowKey":"%s","Big":"%s","Big@odata.type":"Edm.Int64"}', i, 9007199254740993 + i)::tablestore.entity)
	FROM generate_series(1, 300) i;
	SELECT tablestore.execute_batch('After', (SELECT jsonb_agg(jsonb_build_object('op', 'upsert_merge', 'entity',
		jsonb_build_object('PartitionKey', 'q', 'RowKey', i::text, 'When', '2014-08-22T00:50:44.1234567Z', 'When@odata.type', 'Edm.DateTime')))
		FROM generate_series(1, 100) i));
	UPDATE tablestore_data.after SET properties = properties OPERATOR(tablestore.||) '{"sql":true}'::tablestore.entity WHERE row_key LIKE '2%';
});
$primary->wait_for_catchup($standby, 'replay');

my $digest = q{
	SELECT t, md5(string_agg(format('%s|%s|%s|%s|%s', partition_key, row_key, "timestamp", etag,
		encode(tablestore.entity_to_binary(properties), 'hex')), E'\n' ORDER BY partition_key, row_key))
	FROM (SELECT 'Before' AS t, * FROM tablestore_data.before UNION ALL SELECT 'After', * FROM tablestore_data.after) s
	GROUP BY t ORDER BY t};
my $want = $primary->safe_psql('postgres', $digest);
is($standby->safe_psql('postgres', $digest), $want, 'the standby holds byte-identical entities, Timestamps and ETags');
is($standby->safe_psql('postgres', q{SELECT string_agg(t, ',' ORDER BY t) FROM tablestore.list_tables() t}), 'After,Before',
	'and the table registry');
is($standby->safe_psql('postgres', q{SELECT count(*) FROM tablestore.query_entities('After', 'When eq datetime''2014-08-22T00:50:44.1234567Z''')}),
	'100', 'queries run on the standby');
is($standby->safe_psql('postgres', q{SELECT tablestore.prop_int64(properties, 'Big') FROM tablestore.get_entity('After', 'q', '7')}),
	'9007199254741000', 'point reads run on the standby');
my ($ret, $out, $err) = $standby->psql('postgres', q{SELECT tablestore.insert_entity('After', '{"PartitionKey":"q","RowKey":"x"}')});
isnt($ret, 0, 'writes on the standby fail');
like($err, qr/read-only/, 'with PostgreSQL\'s read-only error');

$standby->stop;
$primary->stop;
done_testing();
