// The last message of every subject a KV bucket holds, read in one pass: a push consumer
// delivering the last message per subject to a plain subscription. A listing reads
// thousands of keys this way in the time a few round trips take, where a request a key
// (or the client's per-message consumer machinery) costs several times more.
import { AckPolicy, DeliverPolicy, type JetStreamManager } from "@nats-io/jetstream";
import { createInbox, nanos, type NatsConnection } from "@nats-io/transport-node";

/** How long delivery may pause before the consumer is asked whether anything is left (a value may expire before it is sent). */
const IDLE_CHECK_MS = 200;

/**
 * The body, as text, of the last message of each subject matching `filter` in `stream`,
 * by subject; empty for a key's delete or purge marker. Rejects when the server does not
 * deliver them all within `timeoutMs`.
 */
export async function readLastValues(
  nc: NatsConnection,
  jsm: JetStreamManager,
  stream: string,
  filter: string,
  timeoutMs: number,
): Promise<Map<string, string>> {
  const values = new Map<string, string>();
  let consumer: string | undefined;
  let lastDelivery = Date.now();
  let finish!: (error?: Error) => void;
  const finished = new Promise<void>((resolve, reject) => (finish = (error) => (error === undefined ? resolve() : reject(error))));
  const subscription = nc.subscribe(createInbox(), {
    callback: (error, message) => {
      if (error !== null) return;
      values.set(message.subject, message.string());
      lastDelivery = Date.now();
      if (message.reply !== undefined && pendingAfter(message.reply) === 0) finish();
    },
  });
  const started = Date.now();
  const watch = setInterval(() => {
    if (Date.now() - started > timeoutMs) finish(new Error(`${stream} delivered ${values.size} values and stopped for ${timeoutMs} ms`));
    else if (consumer !== undefined && Date.now() - lastDelivery >= IDLE_CHECK_MS) {
      jsm.consumers.info(stream, consumer).then((info) => info.num_pending === 0 && finish(), finish);
    }
  }, IDLE_CHECK_MS);
  try {
    const info = await jsm.consumers.add(stream, {
      deliver_subject: subscription.getSubject(),
      deliver_policy: DeliverPolicy.LastPerSubject,
      filter_subject: filter,
      ack_policy: AckPolicy.None,
      mem_storage: true,
      // Removed by the server should this process die before it deletes it.
      inactive_threshold: nanos(Math.max(timeoutMs, 5000)),
    });
    consumer = info.name;
    if (info.num_pending === 0 && info.delivered.consumer_seq === 0) finish();
    await finished;
    return values;
  } finally {
    clearInterval(watch);
    subscription.unsubscribe();
    // Not awaited: the values are read, and a consumer left behind goes by its inactive threshold.
    if (consumer !== undefined) void jsm.consumers.delete(stream, consumer).catch(() => undefined);
  }
}

/**
 * The messages a consumer has left to deliver after this one, from the reply subject
 * JetStream gives it: `$JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ts>.<pending>`,
 * or with `<domain>.<account hash>` after `ACK` and a random token at the end.
 */
function pendingAfter(reply: string): number | undefined {
  const tokens = reply.split(".");
  const pending = tokens.length === 9 ? tokens[8] : tokens[10];
  return pending === undefined ? undefined : Number(pending);
}
