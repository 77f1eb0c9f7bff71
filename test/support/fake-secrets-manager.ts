/**
 * A local fake of Secrets Manager's GetSecretValue (the AWS JSON 1.1 protocol: POST / with
 * `X-Amz-Target: secretsmanager.GetSecretValue` and `{"SecretId": …}`; 200 with SecretString, or 400
 * ResourceNotFoundException), reached through the SDK's endpoint override AWS_ENDPOINT_URL_SECRETS_MANAGER.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSecretsManager {
  url: string;
  secrets: Map<string, string>;
  /** The SecretIds asked for, in order. */
  asked: string[];
  close(): Promise<void>;
}

export async function startFakeSecretsManager(): Promise<FakeSecretsManager> {
  const fake: FakeSecretsManager = {
    url: '',
    secrets: new Map(),
    asked: [],
    close: async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'POST' || req.headers['x-amz-target'] !== 'secretsmanager.GetSecretValue') {
        return send(400, { __type: 'UnknownOperationException', message: `unsupported by the fake: ${String(req.headers['x-amz-target'])}` });
      }
      const { SecretId } = JSON.parse(raw) as { SecretId: string };
      fake.asked.push(SecretId);
      const value = fake.secrets.get(SecretId);
      if (value === undefined) return send(400, { __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." });
      send(200, { ARN: `arn:aws:secretsmanager:us-east-1:123456789012:secret:${SecretId}`, Name: SecretId, SecretString: value, VersionId: 'v1', VersionStages: ['AWSCURRENT'], CreatedDate: 1_700_000_000 });
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
