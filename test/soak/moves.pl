# test/soak/moves.pl - the shard-move soak (doc/reliability.md): 1 coordinator and 3 nodes,
# tablestore-gateway routing to the nodes, client processes writing and reading through it with a
# log of what was acknowledged, a shard moved every MOVES_EVERY seconds (every third move takes the
# last moved shard back), for MOVES_MINUTES minutes; then everything is checked against the logs.
# Run by test/soak/moves.sh; test/t/005_shard_moves.pl runs a 40-second version of it.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/../t/lib";
use PostgreSQL::Test::Utils;
use Test::More;
use TsMoves;

my $minutes = $ENV{MOVES_MINUTES} // 10;
my $env = TsMoves::start_clusters(db => 'soak');
my $gw = TsMoves::start_gateway($env);
note("soak: $minutes minutes, a move every " . ($ENV{MOVES_EVERY} // 20) . ' s, ' . ($ENV{MOVES_CLIENTS} // 4) . ' clients');
my $r = TsMoves::soak($env, $gw, seconds => $minutes * 60, move_every => $ENV{MOVES_EVERY} // 20,
	clients => $ENV{MOVES_CLIENTS} // 4, first_move => 5);
my @moves = @{ $r->{moves} };
my @secs = sort { $a <=> $b } map { $_->{seconds} } @moves;
my @lines = (
	sprintf('duration: %.0f s; clients: %d; operations: %d (%d acknowledged writes; %d answers other than the expected)',
		$r->{seconds}, $ENV{MOVES_CLIENTS} // 4, $r->{ops}, $r->{acked}, $r->{unknown}),
	sprintf('entities written: %d; moves: %d (%d back where they came from), each %.1f to %.1f s, median %.1f s; failed moves: %d',
		$r->{entities}, scalar(@moves), scalar(grep { $_->{back} } @moves), $secs[0] // 0, $secs[-1] // 0,
		@secs ? $secs[ $#secs / 2 ] : 0, scalar(grep { !$_->{ok} } @moves)),
	sprintf('lost: %d, stale: %d, duplicated: %d, deleted but back: %d, missing from pages: %d',
		map { $r->{$_} // 0 } qw(lost stale duplicate resurrected missing_in_page)),
	sprintf('slowest call through the gateway: %.3f s; calls through the coordinator on a shard that did not move: %d, max %.3f s, p99 %.3f s',
		$r->{max_latency} // 0, $r->{coordinator_calls}, $r->{coordinator_max}, $r->{coordinator_p99}),
	'problems: ' . (@{ $r->{problems} } ? join('; ', @{ $r->{problems} }) : 'none'));
push @lines, map { "not 2xx: $_" } @{ $r->{errors} // [] };
push @lines, map { "example: $_" } @{ $r->{examples} // [] };
push @lines, map { sprintf('move: shard %d %s -> %s at %.0f s, %.1f s%s%s', $_->{shard}, $_->{from}, $_->{to}, $_->{start}, $_->{seconds},
	$_->{back} ? ' (back)' : '', $_->{ok} ? '' : " FAILED: $_->{error}") } @moves;
note($_) for @lines;
if (my $out = $ENV{MOVES_OUT})
{
	open my $f, '>', $out or die "$out: $!";
	print $f "$_\n" for @lines;
	close $f;
}
ok(@moves >= 2, scalar(@moves) . ' moves');
is(join('; ', @{ $r->{problems} }), '', 'nothing lost, stale, duplicated or left behind');
TsMoves::stop_gateway($gw);
TsMoves::stop_clusters($env);
done_testing();
