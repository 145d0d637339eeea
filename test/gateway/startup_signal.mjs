// test/gateway/startup_signal.mjs - SIGTERM during the gateway's start-up (issue 31, item 10).
// The gateway starts account one's database workers, then connects to account two's database,
// which is a TCP server of this test that accepts and never answers (127.0.0.1): while the
// gateway waits there, its threads already run, and the test sends SIGTERM. The gateway must
// take the signal as its stop (exit 0, "stopping" in its log), not die of it (0.3.0 blocked the
// signals only after every account had started, so the process was killed outright).
// Then (the gwlimits review, item 8): the same with account two's DSN naming no connect_timeout
// and its server never closing (0.4.0 before the fix waited for it for ever: the signal was taken
// only between two accounts); SIGHUP to a gateway that serves is logged and ignored (it killed the
// gateway with no drain and nothing logged); SIGQUIT stops it at once, logged, exit 2.
// Bounded: the gateway gets 30 s to exit after each signal.
//   node startup_signal.mjs --bin GATEWAY --dsn CONNINFO
// Prints one line per check and "N passed, N failed".
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { args, ok, summary } from './http_lib.mjs';

const A = args();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tablestore-startup-'));
const key = () => crypto.randomBytes(64).toString('base64');

const conns = [];
const silent = net.createServer((s) => { conns.push(s); s.on('error', () => { }); });
await new Promise((res) => silent.listen(0, '127.0.0.1', res));
const silentPort = silent.address().port;
const gwPort = await new Promise((res) => { const s = net.createServer(); s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => res(p)); }); });

const conf = path.join(dir, 'gateway.conf');
fs.writeFileSync(conf, `[account one]\nkey1 = ${key()}\ndsn = ${A.dsn}\n` +
	`[account two]\nkey1 = ${key()}\ndsn = host=127.0.0.1 port=${silentPort} dbname=two connect_timeout=20 sslmode=disable\n`);
const gw = spawn(A.bin, ['--port', String(gwPort), '--config', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
let log = '';
gw.stderr.on('data', (d) => { log += d.toString(); });
const exited = new Promise((res) => gw.on('exit', (code, signal) => res({ code, signal })));

// the gateway is in its start-up once it connects to account two's database
const t0 = Date.now();
while (conns.length === 0 && Date.now() - t0 < 30000 && gw.exitCode === null)
	await new Promise((res) => setTimeout(res, 20));
ok(conns.length > 0, "the gateway connects to account two's database during its start-up", `exit ${gw.exitCode}; ${log.slice(0, 300)}`);
gw.kill('SIGTERM');
// then account two's server goes away, so that the rest of the start-up is quick
await new Promise((res) => setTimeout(res, 200));
conns.forEach((s) => s.destroy());
silent.close();
const timer = setTimeout(() => gw.kill('SIGKILL'), 30000);
const { code, signal } = await exited;
clearTimeout(timer);
console.log(`# the gateway after SIGTERM during its start-up: exit code ${code}, signal ${signal}`);
ok(code === 0 && signal === null, 'SIGTERM during start-up: the gateway stops and exits 0 (it is not killed by the signal)', `code ${code} signal ${signal}`);
ok(/stopping/.test(log), 'its log says it is stopping', log.split('\n').slice(-4).join(' | '));

// ---------------------------------------------------------------- a silent database, no connect_timeout
{
	const held = [];
	const mute = net.createServer((s) => { held.push(s); s.on('error', () => { }); });
	await new Promise((res) => mute.listen(0, '127.0.0.1', res));
	fs.writeFileSync(conf, `[account one]\nkey1 = ${key()}\ndsn = ${A.dsn}\n` +
		`[account two]\nkey1 = ${key()}\ndsn = host=127.0.0.1 port=${mute.address().port} dbname=two sslmode=disable\n`);
	const g = spawn(A.bin, ['--port', String(gwPort), '--config', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
	let glog = '';
	g.stderr.on('data', (d) => { glog += d.toString(); });
	const gone = new Promise((res) => g.on('exit', (code, signal) => res({ code, signal })));
	const t1 = Date.now();
	while (held.length === 0 && Date.now() - t1 < 30000 && g.exitCode === null)
		await new Promise((res) => setTimeout(res, 20));
	g.kill('SIGTERM');
	const killer = setTimeout(() => g.kill('SIGKILL'), 30000);
	const r = await gone;
	clearTimeout(killer);
	held.forEach((s) => s.destroy());
	mute.close();
	console.log(`# SIGTERM while the start-up waits on a database that never answers (no connect_timeout): exit code ${r.code}, signal ${r.signal}`);
	ok(r.code === 0 && r.signal === null && /stopping/.test(glog), 'SIGTERM while a database never answers: the start-up stops (exit 0, logged)', `code ${r.code} signal ${r.signal}; ${glog.split('\n').slice(-3).join(' | ')}`);
}

// ---------------------------------------------------------------- SIGHUP and SIGQUIT once it serves
{
	fs.writeFileSync(conf, `[account one]\nkey1 = ${key()}\ndsn = ${A.dsn}\n`);
	const g = spawn(A.bin, ['--port', String(gwPort), '--config', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
	let glog = '';
	g.stderr.on('data', (d) => { glog += d.toString(); });
	const gone = new Promise((res) => g.on('exit', (code, signal) => res({ code, signal })));
	const t1 = Date.now();
	while (!/listening/.test(glog) && Date.now() - t1 < 30000 && g.exitCode === null)
		await new Promise((res) => setTimeout(res, 20));
	const serves = () => new Promise((res) => {
		const s = net.connect(gwPort, '127.0.0.1');
		let d = '';
		s.on('connect', () => s.write('GET /one/Tables HTTP/1.1\r\nHost: x\r\n\r\n'));
		s.on('data', (x) => { d += x; s.destroy(); res(/^HTTP\/1\.1 \d+/.test(d)); });
		s.on('error', () => res(false));
		setTimeout(() => { s.destroy(); res(false); }, 5000);
	});
	g.kill('SIGHUP');
	await new Promise((res) => setTimeout(res, 300));
	const after = g.exitCode === null && await serves();
	ok(after && /SIGHUP\): ignored/.test(glog), 'SIGHUP: logged and ignored, the gateway still serves', `exit ${g.exitCode}; ${glog.split('\n').slice(-3).join(' | ')}`);
	g.kill('SIGQUIT');
	const killer = setTimeout(() => g.kill('SIGKILL'), 30000);
	const r = await gone;
	clearTimeout(killer);
	console.log(`# SIGHUP: ${after ? 'still serving' : 'not serving'}; then SIGQUIT: exit code ${r.code}, signal ${r.signal}`);
	ok(r.code === 2 && r.signal === null && /immediate stop/.test(glog), 'SIGQUIT: an immediate stop, logged, exit 2', `code ${r.code} signal ${r.signal}`);
}
fs.rmSync(dir, { recursive: true, force: true });
process.exit(summary() ? 0 : 1);
