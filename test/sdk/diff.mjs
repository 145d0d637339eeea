#!/usr/bin/env node
// diff.mjs - compare conformance runs (the --json files of run.mjs).
//
//   node test/sdk/diff.mjs A.json            the failures of run A, with each case's basis
//   node test/sdk/diff.mjs A.json B.json     the cases whose verdict differs between A and B
//                                            (and cases only one run has); exit 1 if any
//   --markdown                               print a Markdown table instead (for DIFFERENCES.md)
//   --reasons                                with two runs, also list cases failing in both
//                                            for different reasons
//   --documented FILE                        with two runs, exit 1 only when a differing case
//                                            is not named (as `id`) in FILE, e.g. DIFFERENCES.md;
//                                            a case where A (the reference) got no answer at all
//                                            (timed out, connection dropped) is listed, not counted
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const markdown = args.includes('--markdown');
const reasons = args.includes('--reasons');
const docIdx = args.indexOf('--documented');
const documented = docIdx >= 0 ? readFileSync(args[docIdx + 1], 'utf8') : null;
const files = args.filter((a, i) => !a.startsWith('--') && (docIdx < 0 || i !== docIdx + 1));
if (files.length < 1 || files.length > 2) {
	console.error('usage: node diff.mjs A.json [B.json] [--markdown] [--reasons]');
	process.exit(2);
}

function load(file) {
	const doc = JSON.parse(readFileSync(file, 'utf8'));
	return { doc, byId: new Map(doc.cases.map((c) => [c.id, c])) };
}

const cell = (s) => String(s ?? '').replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

if (files.length === 1) {
	const { doc } = load(files[0]);
	const failed = doc.cases.filter((c) => c.status !== 'ok');
	if (markdown) {
		console.log(`Failures of ${doc.name} (${doc.passed} passed, ${doc.failed} failed, ${doc.started}):\n`);
		console.log('| case | what failed | expectation rests on |');
		console.log('|---|---|---|');
		for (const c of failed) console.log(`| \`${c.id}\` | ${cell(c.why)} | ${cell(c.basis)} |`);
	} else {
		for (const c of failed) console.log(`FAILED ${c.id} ${c.title}: ${c.why}\n    basis: ${c.basis}`);
		console.log(`${doc.name}: ${doc.passed} passed, ${doc.failed} failed`);
	}
	process.exit(0);
}

const a = load(files[0]);
const b = load(files[1]);
const an = a.doc.name;
const bn = b.doc.name === an ? `${b.doc.name}(2)` : b.doc.name;
const ids = [...new Set([...a.byId.keys(), ...b.byId.keys()])];
const rows = [];
for (const id of ids) {
	const x = a.byId.get(id);
	const y = b.byId.get(id);
	if (!x || !y) {
		rows.push({ id, title: (x ?? y).title, a: x ? x.status : 'absent', b: y ? y.status : 'absent', why: (x ?? y).why ?? '', basis: (x ?? y).basis });
	} else if (x.status !== y.status) {
		rows.push({ id, title: x.title, a: x.status, b: y.status, why: x.status !== 'ok' ? x.why : y.why, basis: x.basis });
	} else if (reasons && x.status !== 'ok' && x.why !== y.why) {
		rows.push({ id, title: x.title, a: `failed: ${x.why}`, b: `failed: ${y.why}`, why: '', basis: x.basis });
	}
}
if (markdown) {
	console.log(`| case | ${cell(an)} | ${cell(bn)} | failure | expectation rests on |`);
	console.log('|---|---|---|---|---|');
	for (const r of rows) console.log(`| \`${r.id}\` | ${cell(r.a)} | ${cell(r.b)} | ${cell(r.why)} | ${cell(r.basis)} |`);
} else {
	for (const r of rows) console.log(`${r.id}: ${an}=${r.a} ${bn}=${r.b}${r.why ? ` — ${r.why}` : ''}`);
	console.log(`${rows.length} case(s) differ between ${an} (${a.doc.passed}/${a.doc.cases.length} ok) and ${bn} (${b.doc.passed}/${b.doc.cases.length} ok)`);
}
if (documented !== null) {
	// A reference run's case that got no answer (its server timed out or dropped the connection,
	// as Azurite does on a loaded machine) says nothing about behaviour: listed, not counted.
	const noAnswer = /timed out|no complete response|ECONNRESET|ECONNREFUSED|socket hang up/;
	const silent = (r) => r.a !== 'ok' && r.b === 'ok' && noAnswer.test(a.byId.get(r.id)?.why ?? '');
	const missing = rows.filter((r) => !documented.includes('`' + r.id + '`'));
	for (const r of missing.filter(silent)) console.log(`NO ANSWER FROM ${an} ${r.id}: ${a.byId.get(r.id).why}`);
	const undocumented = missing.filter((r) => !silent(r));
	for (const r of undocumented) console.log(`NOT DOCUMENTED ${r.id}: ${an}=${r.a} ${bn}=${r.b}${r.why ? ` — ${r.why}` : ''}`);
	console.log(`${rows.length - missing.length} of ${rows.length} difference(s) documented in ${args[docIdx + 1]}`);
	process.exit(undocumented.length ? 1 : 0);
}
process.exit(rows.length ? 1 : 0);
