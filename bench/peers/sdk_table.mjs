// bench/peers/sdk_table.mjs - what the benchmarks' SDK drivers share: the official
// @azure/data-tables client pinned by the project's one Node package (test/sdk/package-lock.json)
// and a TableClient for a table of the development account on a loopback port (Azurite or
// tablestore-gateway, the same code for both).
import { createRequire } from 'node:module';

export const { TableClient, odata } = createRequire(new URL('../../test/sdk/package.json', import.meta.url))('@azure/data-tables');

// Azurite's well-known development account (public, documented by Microsoft)
export const ACCOUNT = 'devstoreaccount1';
const KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export function table(port, name) {
	const conn = `DefaultEndpointsProtocol=http;AccountName=${ACCOUNT};AccountKey=${KEY};` +
		`TableEndpoint=http://127.0.0.1:${port}/${ACCOUNT};`;
	return TableClient.fromConnectionString(conn, name, { allowInsecureConnection: true });
}
