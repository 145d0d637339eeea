# test/t/001_crash_atomicity.pl - crash atomicity.
#
# Four clients write concurrently - single inserts and 10-entity batches, two with the direct
# path and two with tablestore.fast_path = off - while the whole server (postmaster and every
# backend) is killed with SIGKILL at a random moment, several times. A client prints "ack ..."
# only after its statement returned success, so the ack files hold exactly the acknowledged
# writes. After each restart (crash recovery): every acknowledged write is there, no batch is
# partly there, and every primary key passes amcheck's bt_index_check with heapallindexed.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More;

my $KILLS = $ENV{TS_CRASH_KILLS} // 5;
my $CLIENTS = 4;
my $STATEMENTS = 20000;    # per client and round; a round ends with the kill long before

my $node = PostgreSQL::Test::Cluster->new('crash');
$node->init;
# durability as shipped: synchronous_commit on, so an acknowledged commit is in the WAL
$node->append_conf('postgresql.conf', "synchronous_commit = on\nrestart_after_crash = off\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION tablestore;
	CREATE EXTENSION amcheck;
	SELECT tablestore.create_table('Crash');
});

# the statements of one client in one round, each followed by its acknowledgement
sub client_script
{
	my ($round, $client) = @_;
	my $file = "$PostgreSQL::Test::Utils::tmp_check/crash_r${round}_c$client.sql";
	open my $f, '>', $file or die "$file: $!";
	print $f "\\set ON_ERROR_STOP 1\n\\o /dev/null\n";
	print $f "SET tablestore.fast_path = " . ($client % 2 ? 'off' : 'on') . ";\n";
	for my $i (1 .. $STATEMENTS)
	{
		my $pk = "r${round}c$client";
		if ($i % 4 == 0)
		{
			my $b = sprintf('B%06d', $i);
			my $ops = join ',', map {
				sprintf('{"op":"insert","entity":{"PartitionKey":"%sb","RowKey":"%s_%02d","n":%d}}', $pk, $b, $_, $i)
			} 0 .. 9;
			print $f "SELECT tablestore.execute_batch('Crash', '[$ops]');\n\\echo ack batch ${pk}b $b\n";
		}
		else
		{
			my $rk = sprintf('I%06d', $i);
			print $f "SELECT tablestore.insert_entity('Crash', '{\"PartitionKey\":\"$pk\",\"RowKey\":\"$rk\",\"n\":$i}');\n";
			print $f "\\echo ack insert $pk $rk\n";
		}
	}
	close $f;
	return $file;
}

# SIGKILL the postmaster and all its children at once, as a power cut would stop them
sub kill_server
{
	my $pid = $node->{_pid};
	my @children = split /\s+/, `pgrep -P $pid`;
	kill 9, $pid, grep { /^\d+$/ } @children;
	$node->{_pid} = undef;
	for (1 .. 100)
	{
		last unless grep { kill 0, $_ } $pid, grep { /^\d+$/ } @children;
		select undef, undef, undef, 0.1;
	}
}

my ($acked_inserts, $acked_batches, $lost) = (0, 0, 0);
for my $round (1 .. $KILLS)
{
	my @runs;
	for my $c (1 .. $CLIENTS)
	{
		my $script = client_script($round, $c);
		my $out = "$PostgreSQL::Test::Utils::tmp_check/crash_r${round}_c$c.ack";
		push @runs, [ $out, IPC::Run::start(
			[ 'psql', '-X', '-q', '-d', $node->connstr('postgres'), '-f', $script ],
			'>', $out, '2>', '/dev/null') ];
	}
	# let the load run for a random 1 to 3 seconds, then cut the power
	select undef, undef, undef, 1 + rand(2);
	kill_server();
	$_->[1]->finish for @runs;
	$node->start;

	# what the clients were told
	my (%inserts, %batches);
	for my $run (@runs)
	{
		open my $f, '<', $run->[0] or die;
		while (<$f>)
		{
			$inserts{"$1|$2"} = 1 if /^ack insert (\S+) (\S+)$/;
			$batches{"$1|$2"} = 1 if /^ack batch (\S+) (\S+)$/;
		}
	}
	ok(%inserts && %batches, "round $round: clients were acknowledged inserts and batches before the kill");

	# every acknowledged insert is there
	my %stored = map { $_ => 1 } split /\n/, $node->safe_psql('postgres',
		"SELECT partition_key || '|' || row_key FROM tablestore_data.crash WHERE partition_key LIKE 'r${round}c%'");
	my @missing = grep { !$stored{$_} } sort keys %inserts;
	is(scalar @missing, 0, "round $round: all " . scalar(keys %inserts) . " acknowledged inserts survived")
	  or diag("missing: @missing[0 .. ($#missing < 9 ? $#missing : 9)]");

	# every acknowledged batch is there whole, and no batch is there in part
	my %batch_rows;
	$batch_rows{$_}++ for map { s/_\d\d$//r } grep { /b\|B/ } keys %stored;
	my @short = grep { ($batch_rows{$_} // 0) != 10 } sort keys %batches;
	is(scalar @short, 0, "round $round: all " . scalar(keys %batches) . " acknowledged batches survived whole");
	my @partial = grep { $batch_rows{$_} != 10 } sort keys %batch_rows;
	is(scalar @partial, 0, "round $round: no batch is partly applied (" . scalar(keys %batch_rows) . " batches stored)");

	$acked_inserts += keys %inserts;
	$acked_batches += keys %batches;
	$lost += @missing + @short;
}

# the primary key's B-tree agrees with the heap
# (bt_index_check raises on any inconsistency; heapallindexed also checks every heap tuple is indexed)
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM (SELECT bt_index_check(i.indexrelid, true) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
	WHERE c.relnamespace = 'tablestore_data'::regnamespace AND i.indisprimary) s}), '1',
	'amcheck: the primary key index is consistent with the heap');
is($lost, 0, 'no acknowledged write was lost');
diag("kills: $KILLS; acknowledged single inserts: $acked_inserts; acknowledged batches: $acked_batches "
	  . "(" . ($acked_batches * 10) . " entities); lost: $lost");

$node->stop;
done_testing();
