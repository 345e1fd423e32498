/**
 * A tiny authoritative DNS server for tests (UDP on 127.0.0.1, a free port): answers A/AAAA
 * from a mutable zone, NXDOMAIN for unknown names, and logs every query it receives so tests
 * assert on what reached the server.
 */
import { createSocket, type RemoteInfo } from 'node:dgram';
import dnsPacket from 'dns-packet';

export interface ZoneRecord {
  a?: string[];
  aaaa?: string[];
  /** TTL in seconds for every record of the name. @default 300 */
  ttl?: number;
  /** Answer with this RCODE and no records. */
  rcode?: 'NXDOMAIN' | 'SERVFAIL' | 'REFUSED';
  /** Never answer (to provoke client timeouts). */
  silent?: boolean;
}

export interface LoggedQuery {
  name: string;
  type: string;
}

export interface TestDnsServer {
  readonly port: number;
  /** `127.0.0.1:port`, ready for `DnsCacheOptions.servers`. */
  readonly address: string;
  readonly queries: LoggedQuery[];
  /** Queries received for `name` (of `type` if given). */
  count(name: string, type?: string): number;
  set(name: string, record: ZoneRecord): void;
  close(): Promise<void>;
}

const RCODES = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;

export async function startDnsServer(
  zone: Record<string, ZoneRecord> = {},
): Promise<TestDnsServer> {
  const records = new Map(Object.entries(zone).map(([k, v]) => [k.toLowerCase(), v]));
  const queries: LoggedQuery[] = [];
  const socket = createSocket('udp4');

  socket.on('message', (message: Buffer, remote: RemoteInfo) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase();
    queries.push({ name, type: question.type });
    const record = records.get(name);
    if (record?.silent) return;

    const rcode = record ? (record.rcode ?? 'NOERROR') : 'NXDOMAIN';
    const ttl = record?.ttl ?? 300;
    const answers: dnsPacket.Answer[] = [];
    if (rcode === 'NOERROR' && record) {
      const list = question.type === 'A' ? record.a : question.type === 'AAAA' ? record.aaaa : [];
      for (const data of list ?? []) {
        answers.push({ type: question.type as 'A' | 'AAAA', name: question.name, ttl, data });
      }
    }
    const response = dnsPacket.encode({
      type: 'response',
      id: query.id,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | RCODES[rcode],
      questions: [question],
      answers,
    });
    socket.send(response, remote.port, remote.address);
  });

  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => resolve());
  });
  const { port } = socket.address();

  return {
    port,
    address: `127.0.0.1:${port}`,
    queries,
    count: (name, type) =>
      queries.filter((q) => q.name === name.toLowerCase() && (!type || q.type === type)).length,
    set: (name, record) => {
      records.set(name.toLowerCase(), record);
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
