import { FIELD_LABELS } from '../../../consent/user-fields.ts';
import type { WithdrawListView, WithdrawStartView } from '../../../consent/views.ts';
import { html } from '../../../http/pages/html.ts';
import { renderPage } from '../../../http/pages/layout.ts';

/** GET /withdraw: the VIN, then on to the manufacturer to prove control of the vehicle. */
export function renderWithdrawStart(v: WithdrawStartView): string {
  const body = html`<h1>Withdraw your consent</h1>
<p>Here you can see which companies receive data from your vehicle through this service because you consented, and
withdraw any of those consents. Data stops flowing at once. Withdrawal does not affect processing that took place before.</p>
<p>To make sure it is your vehicle, you first sign in at its manufacturer (${v.manufacturers.join(', ')}); the manufacturer
is found from the VIN. No data is shared with anyone in this step.</p>
<form method="post" action="${v.actionUrl}">
<input type="hidden" name="csrf" value="${v.csrfToken}">
<label for="f-vin">${FIELD_LABELS.vin}</label>
${v.error ? html`<p class="error" id="f-vin-error" role="alert">${v.error}</p>` : ''}
<input type="text" id="f-vin" name="vin" required autocomplete="off" maxlength="17" spellcheck="false" value="${v.vin}"${
  v.error ? html` aria-invalid="true" aria-describedby="f-vin-error"` : ''
}>
<div class="actions">
<button type="submit" class="primary">Continue to the manufacturer</button>
</div>
</form>`;
  return renderPage({ title: 'Withdraw your consent', body });
}



/** GET /withdraw/consents: the proved vehicle's active consents, one Withdraw button each. */
export function renderWithdrawList(v: WithdrawListView): string {
  const body = html`<h1>Consents for your vehicle ${v.vin}</h1>
${v.withdrawn ? html`<p role="status"><strong>Your consent for ${v.withdrawn} is withdrawn.</strong> Its data stopped flowing, and ${v.withdrawn} is told.</p>` : ''}
${v.consents.length === 0
  ? html`<p>No company receives data from this vehicle through this service because of your consent.</p>`
  : html`<p>These companies receive data from this vehicle because you consented. Withdrawing stops the data at once.</p>
${v.consents.map(
  (c) => html`<section aria-labelledby="c-${c.consentId}">
<h2 id="c-${c.consentId}">${c.consumerName}</h2>
<dl>
<dt>Data</dt><dd>${c.items.join(', ')}</dd>
<dt>Since</dt><dd><time datetime="${c.since}">${c.since.slice(0, 16).replace('T', ' ')} UTC</time></dd>
</dl>
<form method="post" action="${v.actionUrl}">
<input type="hidden" name="csrf" value="${v.csrfToken}">
<input type="hidden" name="consentId" value="${c.consentId}">
<button type="submit" class="primary" aria-describedby="c-${c.consentId}">Withdraw</button>
</form>
</section>`,
)}`}
<p class="muted">This page works for 10 minutes after you signed in at the manufacturer.</p>`;
  return renderPage({ title: 'Your consents', body });
}
