/**
 * A local fake of the Secrets Manager API, the one call the functions make: GetSecretValue over the AWS JSON 1.1
 * protocol (POST / with `X-Amz-Target: secretsmanager.GetSecretValue` and `{"SecretId": …}`; 200 with `SecretString`,
 * or 400 with `{"__type": "ResourceNotFoundException"}` for an unknown id). The SDK reaches it through
 * AWS_ENDPOINT_URL_SECRETS_MANAGER. `failing` makes it answer 500 InternalServiceError.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSecretsManager {
  url: string;
  /** Secret id → SecretString. */
  secrets: Map<string, string>;
  failing: boolean;
  /** The SecretIds asked for, in order. */
  reads: string[];
  close(): Promise<void>;
}

export async function startFakeSecretsManager(secrets: Record<string, string> = {}): Promise<FakeSecretsManager> {
  const fake: FakeSecretsManager = {
    url: '',
    secrets: new Map(Object.entries(secrets)),
    failing: false,
    reads: [],
    close: async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      const send = (status: number, body: object) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'POST' || req.headers['x-amz-target'] !== 'secretsmanager.GetSecretValue') {
        return send(400, { __type: 'UnknownOperationException', message: `unsupported: ${req.headers['x-amz-target']}` });
      }
      const { SecretId } = JSON.parse(raw) as { SecretId: string };
      fake.reads.push(SecretId);
      if (fake.failing) return send(500, { __type: 'InternalServiceError', message: 'try again' });
      const value = fake.secrets.get(SecretId);
      if (value === undefined)
        return send(400, { __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." });
      send(200, {
        ARN: `arn:aws:secretsmanager:us-east-1:000000000000:secret:${SecretId}`,
        Name: SecretId,
        SecretString: value,
        VersionId: 'v1',
        VersionStages: ['AWSCURRENT'],
      });
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
