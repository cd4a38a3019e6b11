/** Webhook configurations per subscription. OWNED BY THE PUSH WORK (issue 7), which completes it. */
export interface WebhookRecord {
  subscriptionId: string;
  url: string;
}

export interface WebhookRepo {
  /** shared */
  get(subscriptionId: string): Promise<WebhookRecord | null>;
}
