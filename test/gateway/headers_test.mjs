// test/gateway/headers_test.mjs - a header that may appear once, sent twice (issue 31, item 5):
// the gateway used the first and ignored the second, so a proxy that reads the last one and the
// gateway saw two different requests (RFC 9112 §3.2 requires 400 for two Host lines). Each is now
// refused: 400 InvalidHeaderValue with the service's error body, the connection closed. Raw HTTP,
// one exchange per header, signed with the account key (the signature is never reached).
// Also: list-valued headers given twice still pass, and a request with each header once is served.
// And framing (the gwlimits review, item 10): HTTP/1.0 with Transfer-Encoding is faulty framing
// (400, closed: it was decoded and the connection kept); a NUL byte inside a header value, in the
// middle of the head or in its last line, is 400 (it was cut there and the request served).
//   node headers_test.mjs --port N --account NAME:KEY
// Prints one line per check and "N passed, N failed".
import { account, args, ok, raw, signedHead, summary } from './http_lib.mjs';

const A = args();
const PORT = Number(A.port);
const ACCT = account(A.account);
const path = `/${ACCT.name}/Tables`;

// the head of a signed Query Tables, with extra header lines before the blank line
const headWith = (lines, method = 'GET', extra = {}) => {
	const h = signedHead(PORT, ACCT, method, path, { Accept: 'application/json;odata=nometadata', ...extra });
	return h.slice(0, -2) + lines.map((l) => `${l}\r\n`).join('') + '\r\n';
};
const errorCode = (res) => {
	const body = res.text.slice(res.text.indexOf('\r\n\r\n') + 4);
	try { return JSON.parse(body)['odata.error'].code; } catch { return `(no error body: ${body.slice(0, 80)})`; }
};

{
	const plain = await raw(PORT, [headWith([])], { timeoutMs: 5000 });
	ok(plain.status === 200, 'a signed Query Tables with each header once: 200', `${plain.status} ${plain.text.slice(0, 200)}`);
}

// [header, a second value]: the head already has Host, Authorization, x-ms-date, x-ms-version
const twice = [
	['Host', 'evil.example'],
	['Authorization', 'SharedKey other:AAAA'],
	['x-ms-date', 'Sun, 06 Nov 1994 08:49:37 GMT'],
	['x-ms-version', '2015-12-11'],
];
// headers the signed head does not have: both lines are added
const added = [
	['Content-MD5', '1B2M2Y8AsgTpgAmY7PhCfg==', 'AAAAAAAAAAAAAAAAAAAAAA=='],
	['Content-Type', 'application/json', 'text/plain'],
	['Content-Length', '0', '0'],
	['Date', 'Sun, 06 Nov 1994 08:49:37 GMT', 'Mon, 07 Nov 1994 08:49:37 GMT'],
	['If-Match', '*', 'W/"datetime\'2020-01-01T00%3A00%3A00Z\'"'],
	['x-ms-client-request-id', 'one', 'two'],
	['x-ms-content-crc64', 'AAAAAAAAAAA=', 'AQAAAAAAAAA='],
	['x-ms-tablestore-indexing-policy', '{"mode":"none"}', '{"mode":"all"}'],
	['X-HTTP-Method', 'MERGE', 'DELETE'],
	['Origin', 'http://a.example', 'http://b.example'],
	['Access-Control-Request-Method', 'GET', 'PUT'],
];
for (const [name, second] of twice) {
	const res = await raw(PORT, [headWith([`${name}: ${second}`])], { timeoutMs: 5000 });
	ok(res.status === 400 && errorCode(res) === 'InvalidHeaderValue' && res.closed,
		`${name} twice: 400 InvalidHeaderValue, connection closed`, `${res.status} ${errorCode(res)} closed=${res.closed}`);
}
for (const [name, v1, v2] of added) {
	const res = await raw(PORT, [headWith([`${name}: ${v1}`, `${name.toLowerCase()}: ${v2}`])], { timeoutMs: 5000 });
	ok(res.status === 400 && errorCode(res) === 'InvalidHeaderValue' && res.closed,
		`${name} twice (any case): 400 InvalidHeaderValue, connection closed`, `${res.status} ${errorCode(res)} closed=${res.closed}`);
	ok(/The request has more than one /.test(res.text), `${name} twice: the message names the header`, res.text.split('\r\n')[0]);
}
{
	// list-valued headers may come on several lines (RFC 9110 §5.3)
	const res = await raw(PORT, [headWith(['Accept: application/json;odata=nometadata', 'Prefer: return-no-content', 'Prefer: odata.maxpagesize=5'])], { timeoutMs: 5000 });
	ok(res.status === 200, 'Accept and Prefer on two lines each: served', `${res.status} ${res.text.slice(0, 200)}`);
}
{
	// HTTP/1.0 with Transfer-Encoding: chunked and keep-alive, then a second request on the connection
	const h1 = headWith(['Transfer-Encoding: chunked', 'Connection: keep-alive']).replace('HTTP/1.1', 'HTTP/1.0');
	const h2 = headWith(['Connection: keep-alive']).replace('HTTP/1.1', 'HTTP/1.0');
	const res = await raw(PORT, [h1 + '5\r\nhello\r\n0\r\n\r\n' + h2], { timeoutMs: 3000 });
	const answers = res.text.match(/HTTP\/1\.[01] \d+/g) ?? [];
	console.log(`# HTTP/1.0 with Transfer-Encoding, then a second request: answers ${JSON.stringify(answers)}, ${res.closed ? 'closed' : 'left open'}`);
	ok(answers.length === 1 && res.status === 400 && res.closed && errorCode(res) === 'InvalidHeaderValue',
		'HTTP/1.0 with Transfer-Encoding: 400 InvalidHeaderValue, one answer, connection closed', JSON.stringify(answers));
	// a NUL byte inside a value: in the middle of the head, and in its last line
	const mid = headWith([]).replace(/(x-ms-version: [^\r]*)/, '$1\u0000junk');
	const last = headWith(['X-Last: ab\u0000cd']);
	for (const [where, head] of [['a value in the middle (x-ms-version)', mid], ['the last line', last]]) {
		const r = await raw(PORT, [head], { timeoutMs: 3000 });
		ok(r.status === 400 && errorCode(r) === 'InvalidHeaderValue', `a NUL byte inside ${where}: 400 InvalidHeaderValue`, `${r.status} ${r.text.slice(0, 120)}`);
	}
	const plain = await raw(PORT, [headWith(['X-Last: abcd  '])], { timeoutMs: 3000 });
	ok(plain.status === 200, 'trailing spaces in the last value: served', `${plain.status}`);
}
process.exit(summary() ? 0 : 1);
