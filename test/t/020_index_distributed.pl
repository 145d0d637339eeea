# test/t/020_index_distributed.pl - automatic indexing of a distributed table (doc/scale-out.md,
# doc/sql-reference.md "Indexing"): 1 coordinator and 2 nodes. The table's indexing policy is
# recorded on the coordinator, which translates filters by it and ships the @~ comparisons to the
# nodes; each node holds the entity index on its part (a hash-partitioned table: a partitioned
# index over one index per shard). Distributing a table carries its policy to the nodes;
# set_indexing_policy on the coordinator rebuilds every node's index online (PostgreSQL 15 builds
# no index concurrently on a partitioned table: each shard's part is built and attached);
# answers are those of an ordinary table throughout.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my @nodes = map {
	my $n = PostgreSQL::Test::Cluster->new("inode$_");
	$n->init;
	$n->append_conf('postgresql.conf', "max_locks_per_transaction = 256\n");
	$n->start;
	$n
} 1 .. 2;
my $coord = PostgreSQL::Test::Cluster->new('icoordinator');
$coord->init;
$coord->append_conf('postgresql.conf', "max_locks_per_transaction = 256\n");
$coord->start;
my $su = $coord->safe_psql('postgres', 'SELECT current_user');
my $db = 'idx';
for my $c ($coord, @nodes)
{
	$c->safe_psql('postgres', "CREATE DATABASE $db");
	$c->safe_psql($db, 'CREATE EXTENSION tablestore');
}
my $servers = "CREATE EXTENSION postgres_fdw;\n";
for my $i (0 .. 1)
{
	my ($host, $port) = ($nodes[$i]->host, $nodes[$i]->port);
	$servers .= "CREATE SERVER n" . ($i + 1) . " FOREIGN DATA WRAPPER postgres_fdw OPTIONS "
	  . "(host '$host', port '$port', dbname '$db', extensions 'tablestore');\n"
	  . "CREATE USER MAPPING FOR PUBLIC SERVER n" . ($i + 1) . " OPTIONS (user '$su', password_required 'false');\n";
}
$coord->safe_psql($db, $servers);
sub c { return $coord->safe_psql($db, $_[0]) }

# the same entities in a distributed table and in an ordinary one (the reference)
my $load = q{INSERT INTO tablestore_data.%s (partition_key, row_key, properties)
	SELECT 'p' || (i %% 40), lpad(i::text, 6, '0'),
		format('{"Code":%%s,"Name":"n%%s","Note":"%%s","Flag":%%s}', i, i, repeat('x', i %% 7), (i %% 13 = 0)::text)::tablestore.entity
	FROM generate_series(1, 6000) i};
c(qq{SELECT tablestore.create_table('Docs');
	SELECT tablestore.create_table('Plain');
	@{[sprintf($load, 'docs')]}; @{[sprintf($load, 'plain')]};
	SELECT tablestore.distribute_table('Docs', ARRAY['n1', 'n2'], 4);});

# the nodes' indexes: a valid partitioned entity index, a part of it on each shard
sub node_indexes
{
	my ($n) = @_;
	return $n->safe_psql($db, q{SELECT string_agg(format('%s %s %s', c.relkind, i.indisvalid,
			substring(pg_get_indexdef(i.indexrelid) from 'excluded=''[^'']*''')), ',' ORDER BY c.relkind, c.relname)
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_opclass o ON o.oid = i.indclass[0]
		WHERE o.opcname = 'entity_gin_ops'});
}
is(node_indexes($_), "I t excluded='',i t excluded='',i t excluded=''", $_->name . ': the entity index on the node\'s table and its 2 shards')
  for @nodes;
is(c(q{SELECT count(*) FROM pg_index i JOIN pg_opclass o ON o.oid = i.indclass[0] WHERE o.opcname = 'entity_gin_ops'}),
	'1', 'the coordinator has the index of the reference table only (its distributed table has none)');
$_->safe_psql($db, 'ANALYZE tablestore_data.docs') for @nodes;

# filters: the same answers; the comparison shipped to the nodes, where the index serves it
my @filters = ("Code eq 42", "Code gt 5990", "Name eq 'n77' or Code lt 3", "Flag eq true and Code le 200",
	"not (Code lt 5995)", "Note eq 'xxx' and Code ge 5900", "Name ge 'n5999'");
for my $f (@filters)
{
	(my $q = $f) =~ s/'/''/g;
	is(c("SELECT string_agg(partition_key || '/' || row_key, ' ') FROM tablestore.query_entities('Docs', '$q')"),
		c("SELECT string_agg(partition_key || '/' || row_key, ' ') FROM tablestore.query_entities('Plain', '$q')"),
		"$f: the distributed table answers as an ordinary one");
	is(c("SELECT jsonb_path_query_array(tablestore.query_page('Docs', '$q', NULL, 7), '\$.value[*].RowKey')::text"),
		c("SELECT jsonb_path_query_array(tablestore.query_page('Plain', '$q', NULL, 7), '\$.value[*].RowKey')::text"),
		"$f: the same first page");
}
my $remote = c(q{EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM tablestore_data.docs WHERE properties OPERATOR(tablestore.@~) 'Code eq 42'::tablestore.property_filter});
like($remote, qr/Remote SQL: .*OPERATOR\(tablestore\.\@~\)/, 'the comparison is shipped to the nodes');
unlike($remote, qr/^\s*Filter:/m, 'and not evaluated on the coordinator');
like($nodes[0]->safe_psql($db, q{SET enable_seqscan = off;
		EXPLAIN (COSTS OFF) SELECT * FROM tablestore_data.docs WHERE properties OPERATOR(tablestore.@~) 'Code eq 42'::tablestore.property_filter}),
	qr/Bitmap Index Scan on docs_\d+_properties_idx/, 'a node reads it from the entity index of a shard (its shards are small: the planner is told to)');

# a policy change on the coordinator: recorded there, set on each node, each node's index rebuilt
is(c(q{SELECT tablestore.set_indexing_policy('Docs', '{"excludedPaths":[{"path":"/Note/?"}]}') -> 'excludedPaths'}),
	'[{"path": "/Note/?"}]', 'set_indexing_policy on the distributed table');
c(q{CALL tablestore.wait_for_indexing('Docs', '3 minutes')});
is(c(q{SELECT tablestore.indexing_progress('Docs')}), '100', 'the coordinator reports it applied on every node');
for my $n (@nodes)
{
	is($n->safe_psql($db, q{SELECT tablestore.get_indexing_policy('Docs') -> 'excludedPaths'}), '[{"path": "/Note/?"}]',
		$n->name . ': the node has the policy');
	is(node_indexes($n), "I t excluded='Note',i t excluded='Note',i t excluded='Note'",
		$n->name . ': the node\'s index is rebuilt for it, the old one gone');
}
like(c(q{SELECT tablestore.query_sql('Docs', 'Note eq ''xx'' and Code eq 4')}), qr/filter_key_string.*\@~/,
	'the coordinator translates an excluded property with the filter keys');
for my $f (@filters)
{
	(my $q = $f) =~ s/'/''/g;
	is(c("SELECT string_agg(partition_key || '/' || row_key, ' ') FROM tablestore.query_entities('Docs', '$q')"),
		c("SELECT string_agg(partition_key || '/' || row_key, ' ') FROM tablestore.query_entities('Plain', '$q')"),
		"$f: the same answers under the new policy");
}

# none: the nodes drop their indexes
c(q{SELECT tablestore.set_indexing_policy('Docs', '{"indexingMode":"none"}')});
c(q{CALL tablestore.wait_for_indexing('Docs', '3 minutes')});
is(node_indexes($_), '', $_->name . ': indexingMode none drops the node\'s index') for @nodes;

# a table distributed with a policy of its own carries it to the nodes
c(qq{SELECT tablestore.create_table('Other', '{"includedPaths":[{"path":"/Code/?"}],"excludedPaths":[{"path":"/*"}]}');
	@{[sprintf($load, 'other')]};
	SELECT tablestore.distribute_table('Other', ARRAY['n1', 'n2'], 4);
	CALL tablestore.wait_for_indexing('Other', '3 minutes');});
for my $n (@nodes)
{
	is($n->safe_psql($db, q{SELECT tablestore.get_indexing_policy('Other') -> 'includedPaths'}), '[{"path": "/Code/?"}]',
		$n->name . ': distribute_table sets the table\'s policy on the node');
	is($n->safe_psql($db, q{SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
			WHERE i.indrelid = 'tablestore_data.other'::regclass AND pg_get_indexdef(i.indexrelid) ~ 'included=''Code''' AND i.indisvalid}),
		'1', $n->name . ': and builds its index');
}
is(c(q{SELECT count(*) FROM tablestore.query_entities('Other', 'Code ge 100 and Code lt 200')}), '100',
	'the table answers through it');

done_testing();
