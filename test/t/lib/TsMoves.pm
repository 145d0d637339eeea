# test/t/lib/TsMoves.pm - shard moves under load through the routed gateway (doc/scale-out.md,
# doc/reliability.md): 1 coordinator and 3 nodes (PostgreSQL::Test::Cluster), tablestore-gateway
# with --node, and clients that keep a log of what the service acknowledged and check every answer
# against it. Used by test/t/005_shard_moves.pl (the suite) and test/soak/moves.pl (the long soak).
#
#   my $env = TsMoves::start_clusters(db => 'moves');
#   my $gw = TsMoves::start_gateway($env);
#   my $r = TsMoves::soak($env, $gw, seconds => 40, move_every => 10);
#   TsMoves::leftovers($env, 'soak');   # what no node should still have after moves
package TsMoves;

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use HTTP::Tiny;
use JSON::PP;
use MIME::Base64 qw(decode_base64);
use Digest::SHA qw(hmac_sha256_base64);
use POSIX ();
use Time::HiRes qw(time sleep);

my $KEY = decode_base64('Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==');

# ---------- the clusters ----------

# Three nodes (logical replication on: moves use it) and a coordinator with servers n1..n3 for
# database $o{db} on each.
sub start_clusters
{
	my (%o) = @_;
	my $db = $o{db} // 'moves';
	my @nodes = map {
		my $n = PostgreSQL::Test::Cluster->new("node$_");
		$n->init;
		# doc/scale-out.md's node settings for moves: logical WAL, room for several moves at once
		# (a walsender and 2 slots per move on its source, 2 workers per move on its target) and
		# no wait between starting one subscription's worker and the next (TS_MOVES_NODE_CONF: more
		# settings, which win)
		$n->append_conf('postgresql.conf', "wal_level = logical\nmax_wal_senders = 20\nmax_replication_slots = 20\n"
			  . "max_logical_replication_workers = 12\nmax_worker_processes = 20\nwal_retrieve_retry_interval = '200ms'\n"
			  . "max_connections = 60\nmax_locks_per_transaction = 256\nlog_min_messages = warning\n" . ($o{node_conf} // $ENV{TS_MOVES_NODE_CONF} // ''));
		$n->start;
		$n
	} 1 .. 3;
	my $coord = PostgreSQL::Test::Cluster->new('coordinator');
	$coord->init;
	$coord->append_conf('postgresql.conf', "max_connections = 60\nmax_locks_per_transaction = 256\n");
	$coord->start;
	my $su = $coord->safe_psql('postgres', 'SELECT current_user');
	for my $c ($coord, @nodes)
	{
		$c->safe_psql('postgres', "CREATE DATABASE $db");
		$c->safe_psql($db, 'CREATE EXTENSION tablestore');
	}
	my $sql = "CREATE EXTENSION postgres_fdw;\n";
	for my $i (0 .. 2)
	{
		$sql .= sprintf("CREATE SERVER n%d FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '%s', port '%s', dbname '%s', "
			  . "extensions 'tablestore');\nCREATE USER MAPPING FOR PUBLIC SERVER n%d OPTIONS (user '%s', password_required 'false');\n",
			$i + 1, $nodes[$i]->host, $nodes[$i]->port, $db, $i + 1, $su);
	}
	$coord->safe_psql($db, $sql);
	return { coord => $coord, nodes => \@nodes, node => { n1 => $nodes[0], n2 => $nodes[1], n3 => $nodes[2] }, db => $db, su => $su };
}

sub stop_clusters
{
	my ($env) = @_;
	$_->stop for ($env->{coord}, @{ $env->{nodes} });
}

# ---------- the gateway ----------

# the gateways started, ended when the test ends even if it dies
my @gateways;
END { for my $gw (@gateways) { eval { $gw->{h}->kill_kill } } }

sub start_gateway
{
	my ($env, %o) = @_;
	my $port = PostgreSQL::Test::Cluster::get_free_port();
	# $o{nodes} => 0: no --node, so every call goes through the coordinator
	my @node_args = ($o{nodes} // 1) ? map { ('--node', sprintf('n%d=host=%s port=%s dbname=%s', $_ + 1, $env->{nodes}[$_]->host,
		$env->{nodes}[$_]->port, $env->{db})) } 0 .. 2 : ();
	my $log = "$PostgreSQL::Test::Utils::tmp_check/gateway_$port.log";
	my $h = IPC::Run::start([ 'tablestore-gateway', '--dsn', sprintf('host=%s port=%s dbname=%s', $env->{coord}->host,
		$env->{coord}->port, $env->{db}), '--port', $port, '--log', 'quiet', '--threads', $o{threads} // 8, @node_args ],
		'>', $log, '2>&1');
	my $gw = { port => $port, h => $h, log => $log };
	push @gateways, $gw;
	my $http = http();
	for (1 .. 100)
	{
		last if request($http, $gw, 'GET', '/Tables')->{status} == 200;
		sleep 0.1;
	}
	return $gw;
}

sub stop_gateway
{
	my ($gw) = @_;
	$gw->{h}->signal('TERM');
	$gw->{h}->finish;
}

sub http { return HTTP::Tiny->new(timeout => 30, keep_alive => 1) }

# One call of the service's REST protocol, signed with the emulator's account key (SharedKeyLite).
sub request
{
	my ($http, $gw, $method, $path, $body, %h) = @_;
	my $date = POSIX::strftime('%a, %d %b %Y %H:%M:%S GMT', gmtime);
	(my $resource = $path) =~ s/\?.*//;
	my $sig = hmac_sha256_base64("$date\n/devstoreaccount1/devstoreaccount1$resource", $KEY);
	$sig .= '=' while length($sig) % 4;
	return $http->request($method, "http://127.0.0.1:$gw->{port}/devstoreaccount1$path", {
		headers => { 'x-ms-date' => $date, 'x-ms-version' => '2019-02-02', Accept => 'application/json;odata=minimalmetadata',
			'Content-Type' => 'application/json', Authorization => "SharedKeyLite devstoreaccount1:$sig", %h },
		defined $body ? (content => $body) : () });
}

sub url_escape
{
	my ($s) = @_;
	$s =~ s/([^A-Za-z0-9\-._~])/sprintf('%%%02X', ord $1)/ge;
	return $s;
}

# Every entity of a partition through the gateway (pages followed): { rk => etag }, or an error
# string; a RowKey twice is reported as such.
sub partition_entities
{
	my ($http, $gw, $table, $pk) = @_;
	my (%seen, $npk, $nrk);
	for my $page (1 .. 1000)
	{
		my $q = '$filter=' . url_escape("PartitionKey eq '$pk'");
		$q .= '&NextPartitionKey=' . url_escape($npk) . '&NextRowKey=' . url_escape($nrk) if defined $npk;
		my $res = request($http, $gw, 'GET', "/$table()?$q");
		return "query $res->{status}: " . substr($res->{content} // '', 0, 200) if $res->{status} != 200;
		for my $e (@{ decode_json($res->{content})->{value} })
		{
			return "RowKey $e->{RowKey} twice in the pages of $pk" if exists $seen{ $e->{RowKey} };
			$seen{ $e->{RowKey} } = $e->{'odata.etag'};
		}
		$npk = $res->{headers}{'x-ms-continuation-nextpartitionkey'};
		$nrk = $res->{headers}{'x-ms-continuation-nextrowkey'};
		return \%seen unless defined $npk;
	}
	return "more than 1000 pages";
}

# ---------- a client with a log of what was acknowledged ----------

# One client process: mixed writes and reads on its own partitions through the gateway until
# $until, each answer checked against its log (it is the only writer of its entities). Writes its
# log (every entity's last acknowledged state) and its findings as JSON to $out. $o{pks}: its
# partitions (8 of its own); $o{pause}: a file whose presence stops its calls meanwhile; $o{stop}:
# a file whose presence ends it before $until.
sub client
{
	my ($gw, $table, $id, $until, $out, $seed, %o) = @_;
	srand($seed);
	my $http = http();
	my (%ent, %r);			# pk/rk -> { etag, n, live }
	my @pks = $o{pks} ? @{ $o{pks} } : map { "c${id}p$_" } 0 .. 7;
	my $seq = 0;
	$r{$_} = 0 for qw(ops acked unknown lost stale duplicate resurrected missing_in_page);
	my ($max, @slow) = (0);
	my $violation = sub {
		my ($kind, $what) = @_;
		$r{$kind}++;
		push @{ $r{examples} }, "$kind: $what" if scalar(@{ $r{examples} // [] }) < 20;
	};
	my $unknown = sub {
		my ($k, $res) = @_;
		$r{unknown}++;
		push @{ $r{errors} }, "$res->{status} " . substr($res->{content} // '', 0, 160) if scalar(@{ $r{errors} // [] }) < 10;
		delete $ent{$k};	# its state is not known: no longer checked
	};
	my $etag_of = sub { my ($res) = @_; my $e = $res->{headers}{etag}; return $e };
	while (time < $until)
	{
		last if $o{stop} && -e $o{stop};
		if ($o{pause} && -e $o{pause})
		{
			sleep 0.01;		# no call: the gateway's shard map ages meanwhile
			next;
		}
		my $op = rand();
		my $t0 = time;
		my @keys = grep { $ent{$_}{live} } sort keys %ent;
		my $k = @keys ? $keys[ int(rand(@keys)) ] : undef;
		my ($pk, $rk) = defined $k ? split(m{/}, $k) : ();
		$r{ops}++;
		if ($op < 0.35 || !defined $k)
		{
			$pk = $pks[ int(rand(@pks)) ];
			$rk = sprintf('r%06d', ++$seq);
			my $res = request($http, $gw, 'POST', "/$table", encode_json({ PartitionKey => $pk, RowKey => $rk, n => 0, c => $id }),
				Prefer => 'return-no-content');
			if ($res->{status} == 204) { $ent{"$pk/$rk"} = { etag => $etag_of->($res), n => 0, live => 1 }; $r{acked}++ }
			elsif ($res->{status} == 409) { $violation->('duplicate', "insert of new $pk/$rk answered 409") }
			else { $unknown->("$pk/$rk", $res) }
		}
		elsif ($op < 0.55)
		{
			my $e = $ent{$k};
			my $res = request($http, $gw, 'PATCH', "/$table(PartitionKey='$pk',RowKey='$rk')", encode_json({ n => $e->{n} + 1 }),
				'If-Match' => $e->{etag});
			if ($res->{status} == 204) { $e->{etag} = $etag_of->($res); $e->{n}++; $r{acked}++ }
			elsif ($res->{status} == 412) { $violation->('stale', "merge of $k with its acknowledged ETag answered 412") }
			elsif ($res->{status} == 404) { $violation->('lost', "merge of $k answered 404") }
			else { $unknown->($k, $res) }
		}
		elsif ($op < 0.65)
		{
			my $e = $ent{$k};
			my $res = request($http, $gw, 'PUT', "/$table(PartitionKey='$pk',RowKey='$rk')", encode_json({ n => $e->{n} + 1, c => $id, r => 1 }),
				'If-Match' => $e->{etag});
			if ($res->{status} == 204) { $e->{etag} = $etag_of->($res); $e->{n}++; $r{acked}++ }
			elsif ($res->{status} == 412) { $violation->('stale', "replace of $k with its acknowledged ETag answered 412") }
			elsif ($res->{status} == 404) { $violation->('lost', "replace of $k answered 404") }
			else { $unknown->($k, $res) }
		}
		elsif ($op < 0.72)
		{
			my $e = $ent{$k};
			my $res = request($http, $gw, 'DELETE', "/$table(PartitionKey='$pk',RowKey='$rk')", undef, 'If-Match' => $e->{etag});
			if ($res->{status} == 204) { $e->{live} = 0; $r{acked}++ }
			elsif ($res->{status} == 412) { $violation->('stale', "delete of $k with its acknowledged ETag answered 412") }
			elsif ($res->{status} == 404) { $violation->('lost', "delete of $k answered 404") }
			else { $unknown->($k, $res) }
		}
		elsif ($op < 0.86)
		{
			# a point read of any entity this client wrote, deleted ones too
			my @all = sort keys %ent;
			$k = $all[ int(rand(@all)) ];
			($pk, $rk) = split m{/}, $k;
			my $e = $ent{$k};
			my $res = request($http, $gw, 'GET', "/$table(PartitionKey='$pk',RowKey='$rk')");
			if ($res->{status} == 200)
			{
				my $got = decode_json($res->{content});
				if (!$e->{live}) { $violation->('resurrected', "read of deleted $k answered 200") }
				elsif (($res->{headers}{etag} // '') ne $e->{etag} || $got->{n} != $e->{n})
				{
					$violation->('stale', "read of $k: ETag $res->{headers}{etag} n $got->{n}, acknowledged $e->{etag} n $e->{n}");
				}
			}
			elsif ($res->{status} == 404) { $violation->('lost', "read of $k answered 404") if $e->{live} }
			else { $r{unknown}++; push @{ $r{errors} }, "read $res->{status}" if scalar(@{ $r{errors} // [] }) < 10 }
		}
		else
		{
			# a partition's pages: every acknowledged entity there, with its ETag, each once
			$pk = $pks[ int(rand(@pks)) ];
			my $got = partition_entities($http, $gw, $table, $pk);
			if (!ref $got)
			{
				if ($got =~ /twice/) { $violation->('duplicate', $got) }
				else { $r{unknown}++; push @{ $r{errors} }, $got if scalar(@{ $r{errors} // [] }) < 10 }
			}
			else
			{
				for my $key (grep { m{^\Q$pk\E/} } keys %ent)
				{
					my ($x, $row) = split m{/}, $key;
					my $e = $ent{$key};
					if ($e->{live} && !exists $got->{$row}) { $violation->('missing_in_page', "$key is not in the pages of $pk") }
					elsif ($e->{live} && $got->{$row} ne $e->{etag}) { $violation->('stale', "$key in a page with ETag $got->{$row}, acknowledged $e->{etag}") }
					elsif (!$e->{live} && exists $got->{$row}) { $violation->('resurrected', "deleted $key is in the pages of $pk") }
				}
			}
		}
		my $dt = time - $t0;
		$max = $dt if $dt > $max;
		push @slow, sprintf('%.3f s at %.1f', $dt, $t0) if $dt > 1 && @slow < 20;
	}
	$r{max_latency} = $max;
	$r{slow} = \@slow;
	$r{log} = { map { $_ => [ $ent{$_}{live} ? 1 : 0, $ent{$_}{etag} ] } keys %ent };
	open my $f, '>', $out or die "$out: $!";
	print $f encode_json(\%r);
	close $f;
}

# ---------- clients and the final check ----------

# $n client processes through the gateway until $until, each writing its findings to
# $dir/client_<i>.json (i from $o{first}, 1 by default); their pids. $o{pks}, $o{pause}, $o{stop}:
# client's.
sub start_clients
{
	my ($gw, $table, $dir, $until, $n, %o) = @_;
	my $first = $o{first} // 1;
	my @pids;
	for my $c ($first .. $first + $n - 1)
	{
		my $pid = fork();
		die "fork: $!" unless defined $pid;
		if ($pid == 0)
		{
			eval {
				client($gw, $table, $c, $until, "$dir/client_$c.json", $c * 7919 + int(time),
					map { $o{$_} ? ($_ => $o{$_}) : () } qw(pks pause stop))
			};
			if ($@) { open my $e, '>', "$dir/client_$c.json"; print $e encode_json({ crashed => "$@" }); }
			POSIX::_exit(0);
		}
		push @pids, $pid;
	}
	return @pids;
}

# The clients' findings (their JSON files in $dir) added up: counts, examples, errors and the
# merged log of acknowledged writes ('log'); 'problems' lists what is wrong.
sub client_findings
{
	my ($dir, @ids) = @_;
	my (%r, %log);
	$r{problems} = [];
	for my $c (@ids)
	{
		my $j = eval { decode_json(slurp_file("$dir/client_$c.json")) } // { crashed => 'no output' };
		push @{ $r{problems} }, "client $c crashed: $j->{crashed}" if $j->{crashed};
		for my $k (qw(ops acked unknown lost stale duplicate resurrected missing_in_page))
		{
			$r{$k} += $j->{$k} // 0;
		}
		$r{max_latency} = $j->{max_latency} if ($j->{max_latency} // 0) > ($r{max_latency} // 0);
		push @{ $r{examples} }, @{ $j->{examples} // [] };
		push @{ $r{errors} }, @{ $j->{errors} // [] };
		push @{ $r{slow} }, @{ $j->{slow} // [] };
		%log = (%log, %{ $j->{log} // {} });
	}
	push @{ $r{problems} }, sprintf('%d %s', $r{$_}, $_) for grep { $r{$_} } qw(lost stale duplicate resurrected missing_in_page);
	$r{log} = \%log;
	$r{entities} = scalar keys %log;
	return \%r;
}

# The final state against the clients' log ($r->{log}), problems added to $r->{problems}: through
# the coordinator every acknowledged entity with its last ETag and nothing deleted back (partition
# 'probe' is not the clients'); each key on exactly the node the coordinator's map names; nothing
# of a move left on a node.
sub final_check
{
	my ($env, $table, $r) = @_;
	my ($coord, $db, $key) = ($env->{coord}, $env->{db}, lc $table);
	my %final = map { my ($pk, $rk, $etag) = split /\|/; ("$pk/$rk" => $etag) }
	  split /\n/, $coord->safe_psql($db, "SELECT partition_key, row_key, etag FROM tablestore_data.$key WHERE partition_key <> 'probe'");
	my ($lost, $stale, $back) = (0, 0, 0);
	for my $k (keys %{ $r->{log} })
	{
		my ($live, $etag) = @{ $r->{log}{$k} };
		if ($live && !exists $final{$k}) { $lost++; push @{ $r->{examples} }, "final: $k lost" if $lost < 10 }
		elsif ($live && $final{$k} ne $etag) { $stale++; push @{ $r->{examples} }, "final: $k has $final{$k}, acknowledged $etag" if $stale < 10 }
		elsif (!$live && exists $final{$k}) { $back++ }
	}
	push @{ $r->{problems} }, "final check: $lost lost, $stale stale, $back deleted but present" if $lost + $stale + $back;

	my %owner = map { split /\|/ } split /\n/, $coord->safe_psql($db, "SELECT shard, server FROM tablestore.table_shards('$table')");
	my $count = $coord->safe_psql($db, "SELECT max(shard_count) FROM tablestore.table_shards('$table')");
	my %where;
	for my $n (qw(n1 n2 n3))
	{
		next unless $env->{node}{$n}->safe_psql($db, "SELECT to_regclass('tablestore_data.$key') IS NOT NULL") eq 't';
		for (split /\n/, $env->{node}{$n}->safe_psql($db, "SELECT partition_key || '/' || row_key, tablestore.shard_of(partition_key, $count) "
			  . "FROM tablestore_data.$key"))
		{
			my ($k, $s) = split /\|/;
			push @{ $r->{problems} }, "$k is on $n, which does not own shard $s" if $owner{$s} ne $n;
			push @{ $where{$k} }, $n;
		}
	}
	my $twice = grep { @{ $where{$_} } > 1 } keys %where;
	push @{ $r->{problems} }, "$twice keys on more than one node" if $twice;
	push @{ $r->{problems} }, leftovers($env, $key);
}

# ---------- the soak ----------

# $o{clients} client processes for $o{seconds} through the gateway on table $o{table} (created and
# distributed over n1..n3 with 8 shards) and one more through a gateway of its own, a shard moved
# every $o{move_every} seconds (every third time away and straight back while that client's gateway
# keeps the map it read before), and pgbench timing calls through the coordinator on a
# partition whose shard does not move ($o{probe_rate}, 50 a second). Then the final check against the
# coordinator and each node.
# Returns a hash of figures and findings ('problems': a list, empty when all is well).
sub soak
{
	my ($env, $gw, %o) = @_;
	my $table = $o{table} // 'Soak';
	my $key = lc $table;
	my ($coord, $db) = ($env->{coord}, $env->{db});
	my $seconds = $o{seconds} // 40;
	my $nclients = $o{clients} // 4;
	my $dir = "$PostgreSQL::Test::Utils::tmp_check/soak_$key";
	mkdir $dir;
	$coord->safe_psql($db, "SELECT tablestore.create_table('$table'); SELECT tablestore.distribute_table('$table', ARRAY['n1', 'n2', 'n3'], 8);
		SELECT tablestore.insert_entity('$table', '{\"PartitionKey\":\"probe\",\"RowKey\":\"0001\"}')");
	my $probe_shard = $coord->safe_psql($db, "SELECT shard FROM tablestore.route('$table', 'probe')");

	# pgbench: a point read and an upsert through the coordinator, on a shard that stays
	my $script = "$dir/probe.sql";
	open my $f, '>', $script or die;
	print $f "SELECT etag FROM tablestore.get_entity('$table', 'probe', '0001');\n"
	  . "SELECT tablestore.upsert_entity('$table', '{\"PartitionKey\":\"probe\",\"RowKey\":\"0002\",\"v\":1}');\n";
	close $f;
	my $t_start = time;
	my $until = $t_start + $seconds;
	my $pgbench = IPC::Run::start([ 'pgbench', '-n', '-c', '1', '-T', int($seconds), '-R', $o{probe_rate} // 50, '-f', $script, '-l', "--log-prefix=$dir/pgbench",
		'-h', $coord->host, '-p', $coord->port, $db ], '>', "$dir/pgbench.out", '2>&1');
	# the clients; the last one has a gateway of its own, a partition in every shard, and pauses
	# while a shard moves away so that its gateway routes by a map read before the move
	my $gw2 = start_gateway($env);
	my $pause = "$dir/pause";
	my @stale_pks = split /\n/, $coord->safe_psql($db, q{SELECT pk FROM (SELECT DISTINCT ON (tablestore.shard_of('s' || i, 8)) 's' || i AS pk
		FROM generate_series(0, 999) i ORDER BY tablestore.shard_of('s' || i, 8), i) x});
	my @pids = start_clients($gw, $table, $dir, $until, $nclients);
	push @pids, start_clients($gw2, $table, $dir, $until, 1, first => $nclients + 1, pks => \@stale_pks, pause => $pause);

	# the mover: a shard moves each turn; every third turn another one then moves away and straight
	# back, the move back held up (a transaction on its source) for 1.5 s while its copy is filled
	# and the pausing client's gateway still routes by the map it read before the shard moved away
	my @moves;
	my $every = $o{move_every} // 20;
	my $next = $t_start + ($o{first_move} // 2);
	my $move = sub {
		my ($shard, $to, %m) = @_;
		my $from = $coord->safe_psql($db, "SELECT server FROM tablestore.table_shards('$table') WHERE shard = $shard");
		my $t0 = time;
		my ($rc, $out, $err) = $coord->psql($db, "CALL tablestore.move_shard('$table', $shard, '$to', '2 minutes')");
		push @moves, { shard => $shard, from => $from, to => $to, start => $t0 - $t_start, seconds => time - $t0,
			ok => $rc == 0, error => $err, %m };
	};
	for (my $turn = 0; time < $until - 4; $turn++)
	{
		sleep($next - time) if $next > time;
		last if time >= $until - 4;
		$next += $every;
		my @shards = grep { $_ != $probe_shard } 0 .. 7;
		my $shard = $shards[ int(rand(@shards)) ];
		my $from = $coord->safe_psql($db, "SELECT server FROM tablestore.table_shards('$table') WHERE shard = $shard");
		my ($to) = grep { $_ ne $from } sort { rand() <=> 0.5 } qw(n1 n2 n3);
		$move->($shard, $to);
		next if $turn % 3 != 2;
		# the pausing client meets the move just made and its gateway reads the map again; then
		# another shard moves away and back within that map's lifetime
		sleep 1.5;
		$shard = (grep { $_ != $shard } @shards)[ int(rand(@shards - 1)) ];
		$from = $coord->safe_psql($db, "SELECT server FROM tablestore.table_shards('$table') WHERE shard = $shard");
		($to) = grep { $_ ne $from } sort { rand() <=> 0.5 } qw(n1 n2 n3);
		open my $p, '>', $pause or die;
		close $p;
		$move->($shard, $to);
		my $hold = $env->{node}{$to}->background_psql($db);
		$hold->query_safe('BEGIN; SELECT pg_current_xact_id()');
		my ($mv_out, $mv_err) = ('', '');
		my $t0 = time;
		my $back = IPC::Run::start([ 'psql', '-X', '-d', $coord->connstr($db), '-c',
			"CALL tablestore.move_shard('$table', $shard, '$from', '2 minutes')" ], '>', \$mv_out, '2>', \$mv_err);
		for (1 .. 200)
		{
			last if $env->{node}{$from}->safe_psql($db, "SELECT count(*) FROM pg_class WHERE relname = '${key}_$shard'") eq '1';
			sleep 0.02;
		}
		unlink $pause;
		sleep 1.5;
		$hold->quit;
		$back->finish;
		push @moves, { shard => $shard, from => $to, to => $from, start => $t0 - $t_start, seconds => time - $t0,
			ok => !$back->result, error => $mv_err, back => 1 };
	}
	unlink $pause;
	waitpid $_, 0 for @pids;
	$pgbench->finish;
	stop_gateway($gw2);

	# the clients' findings, then the final state
	my $r = client_findings($dir, 1 .. $nclients + 1);
	my %r = %$r;
	$r{moves} = \@moves;
	push @{ $r{problems} }, sprintf('move of shard %d %s -> %s failed: %s', $_->{shard}, $_->{from}, $_->{to}, $_->{error})
	  for grep { !$_->{ok} } @moves;
	final_check($env, $table, \%r);

	# the calls through the coordinator on a shard that did not move: how long they waited
	my @lat;
	@lat = pgbench_latencies(grep { m{/pgbench\.\d+$} } glob("$dir/pgbench*"));
	$r{coordinator_calls} = scalar @lat;
	$r{coordinator_max} = @lat ? $lat[-1] : 0;
	$r{coordinator_p99} = @lat ? $lat[ int(0.99 * $#lat) ] : 0;
	$r{seconds} = time - $t_start;
	return \%r;
}

# The latencies in pgbench's per-transaction logs (-l), in seconds, sorted: each transaction's
# time without its schedule lag (with --rate pgbench counts from the scheduled start).
sub pgbench_latencies
{
	my @lat;
	for my $line (map { split /\n/, slurp_file($_) } @_)
	{
		my @f = split / /, $line;
		push @lat, ($f[2] - ($f[6] // 0)) / 1e6 if @f >= 6 && ($f[6] // '') ne 'skipped';
	}
	return sort { $a <=> $b } @lat;
}

# What moves must not leave behind on any node: subscriptions, publications, replication slots,
# fences, and shard tables of the table that the coordinator's map does not name there.
sub leftovers
{
	my ($env, $key) = @_;
	my ($coord, $db) = ($env->{coord}, $env->{db});
	my @problems;
	my %owner = map { split /\|/ } split /\n/, $coord->safe_psql($db, "SELECT shard, server FROM tablestore.table_shards('$key')");
	for my $n (qw(n1 n2 n3))
	{
		my $node = $env->{node}{$n};
		my $fences = $node->safe_psql($db, q{SELECT to_regclass('tablestore_internal.shard_fences') IS NOT NULL}) eq 't'
		  ? q{(SELECT 'fences: ' || string_agg(shard_table::text || ' ' || state, ',') FROM tablestore_internal.shard_fences)} : 'NULL';
		my $left = $node->safe_psql($db, qq{SELECT concat_ws(' ',
			(SELECT 'subscriptions: ' || string_agg(subname, ',') FROM pg_subscription),
			(SELECT 'publications: ' || string_agg(pubname, ',') FROM pg_publication),
			(SELECT 'slots: ' || string_agg(slot_name, ',') FROM pg_replication_slots), $fences)});
		push @problems, "$n has $left" if $left ne '';
		for my $t (split /\n/, $node->safe_psql($db, "SELECT relname FROM pg_class WHERE relnamespace = 'tablestore_shards'::regnamespace "
			  . "AND relkind = 'r' AND relname LIKE '${key}_%'"))
		{
			my ($s) = $t =~ /_(\d+)$/;
			push @problems, "$n has the shard table $t, which the map puts on $owner{$s}" if $owner{$s} ne $n;
		}
	}
	return @problems;
}

1;
