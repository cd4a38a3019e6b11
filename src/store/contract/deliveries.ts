/** Push deliveries (one per subscription and event). OWNED BY THE PUSH WORK (issue 7). */
export interface DeliveryRecord {
  transactionId: string;
  subscriptionId: string;
  status: string;
}

export interface DeliveryRepo {
  /** shared: GDPR erasure. Returns how many. */
  deleteByVin(vin: string): Promise<number>;
}
