// test/gateway/signed_get.mjs - one Shared Key signed GET (development account); prints the status
// and the error code.   node signed_get.mjs PORT PATH
import crypto from 'node:crypto';
import http from 'node:http';

const [port, path] = process.argv.slice(2);
const key = Buffer.from('Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==', 'base64');
const date = new Date().toUTCString();
const sig = crypto.createHmac('sha256', key).update(`GET\n\n\n${date}\n/devstoreaccount1${path}`).digest('base64');
const r = http.get({ host: '127.0.0.1', port, path, headers: { 'x-ms-date': date, Authorization: `SharedKey devstoreaccount1:${sig}` } }, (res) => {
	res.resume();
	res.on('end', () => console.log(res.statusCode, res.headers['x-ms-error-code'] || ''));
});
r.on('error', (e) => console.log(0, e.code));
