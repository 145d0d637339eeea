// test/gateway/headers_test.mjs - a header that may appear once, sent twice (issue 31, item 5):
// the gateway used the first and ignored the second, so a proxy that reads the last one and the
// gateway saw two different requests (RFC 9112 §3.2 requires 400 for two Host lines). Each is now
// refused: 400 InvalidHeaderValue with the service's error body, the connection closed. Raw HTTP,
// one exchange per header, signed with the account key (the signature is never reached).
// Also: list-valued headers given twice still pass, and a request with each header once is served.
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
process.exit(summary() ? 0 : 1);
