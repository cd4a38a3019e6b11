import { FIELD_LABELS, USER_FIELDS, type UserField } from '../../../consent/user-fields.ts';
import type { PortalItem, PortalView } from '../../../consent/views.ts';
import { html } from '../../../http/pages/html.ts';
import { renderPage } from '../../../http/pages/layout.ts';
import { GROUP_ABOVE, groupByTopic } from './item-topics.ts';

const AUTOCOMPLETE: Record<UserField, string> = { vin: 'off', firstName: 'given-name', lastName: 'family-name', email: 'email' };

function field(view: PortalView, f: UserField) {
  const id = `f-${f}`;
  const error = view.errors[f];
  return html`<label for="${id}">${FIELD_LABELS[f]}</label>
${error ? html`<p class="error" id="${id}-error">${error}</p>` : ''}
<input type="${f === 'email' ? 'email' : 'text'}" id="${id}" name="${f}" required autocomplete="${AUTOCOMPLETE[f]}"
 value="${view.entered[f] ?? ''}"${error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}${
   // The browser checks the VIN's form before posting: a wrong one sent with a redirectUrl ends the process.
   f === 'vin' ? html` maxlength="17" pattern="[A-HJ-NPR-Za-hj-npr-z0-9]{17}" title="17 characters: digits and letters except I, O and Q" spellcheck="false"` : ''
 }>`;
}

function itemEntries(items: PortalItem[]) {
  return items.map((i) => html`<dt>${i.name} <span class="muted">(${i.technicalName})</span></dt><dd>${i.description}</dd>`);
}

/** A few items as one list; many grouped by topic, each collapsed, so the buttons stay in view. */
function itemList(items: PortalItem[]) {
  if (items.length <= GROUP_ABOVE) return html`<dl aria-labelledby="items">${itemEntries(items)}</dl>`;
  return html`<p>${items.length} items in ${groupByTopic(items).length} topics; open a topic to read its items.</p>
${groupByTopic(items).map((t) => html`<details class="topic"><summary>${t.name} (${t.items.length})</summary><dl>${itemEntries(t.items)}</dl></details>`)}`;
}

/** The consent portal (spec 4.1 step 2): items, purpose, parties, rights; approve or reject. */
export function renderPortalPage(view: PortalView): string {
  const missing = USER_FIELDS.filter((f) => view.given[f] === null);
  const given = USER_FIELDS.filter((f) => view.given[f] !== null);
  const manufacturer = view.manufacturerName ?? 'the manufacturer of your vehicle (determined from the VIN you enter)';
  const body = html`<h1>Share your vehicle data with ${view.consumerName}?</h1>
${view.errors.form ? html`<p class="error" role="alert">${view.errors.form}</p>` : ''}
<p>${view.consumerName} asks for your consent to receive data from your vehicle through ${view.serviceName}.
You decide here; afterwards you confirm at ${manufacturer}.</p>

<h2 id="items">The data ${view.consumerName} will receive</h2>
${itemList(view.items)}

<h2>Purpose</h2>
<p>${view.consumerName} uses this data to provide the ctx you use with it (subscription
<span class="muted">${view.subscriptionId}</span>). The data is personal data under the GDPR because it relates to your
vehicle. It flows only while your consent is active.</p>

<h2>Who is involved</h2>
<dl>
<dt>Data consumer</dt><dd>${view.consumerName}, who receives the data.</dd>
<dt>Vehicle manufacturer</dt><dd>${manufacturer}, which supplies the data and asks you to confirm there.</dd>
<dt>This service</dt><dd>${view.serviceName}, which records your consent and passes the data on to ${view.consumerName}.</dd>
</dl>

<h2>Your rights</h2>
<ul>
<li>Access: you may ask what data about you and your vehicle is processed.</li>
<li>Withdrawal: you may withdraw your consent at any time, here at <a href="${view.withdrawUrl}">${view.withdrawUrl}</a>
or through ${view.consumerName}; data stops flowing at once.
Withdrawal does not affect processing that took place before.</li>
<li>Erasure: you may ask for the data linked to your vehicle to be erased.</li>
<li>Complaint: you may lodge a complaint with a data protection supervisory authority.</li>
</ul>

<form method="post" action="${view.actionUrl}">
<input type="hidden" name="consentId" value="${view.consentId}">
<input type="hidden" name="csrf" value="${view.csrfToken}">
${view.entry !== null ? html`<input type="hidden" name="entry" value="${view.entry}">` : ''}
${given.length > 0
  ? html`<h2>Your details</h2><dl>${given.map((f) => html`<dt>${FIELD_LABELS[f]}</dt><dd>${view.given[f] ?? ''}</dd>`)}</dl>`
  : ''}
${missing.length > 0
  ? html`<fieldset><legend>Please enter your details</legend>${missing.map((f) => field(view, f))}</fieldset>`
  : ''}
<p class="muted">${view.returnsToConsumer
  ? html`When you are done you return to ${view.consumerName}.`
  : 'When you are done you see a confirmation here.'}</p>
<div class="actions">
<button type="submit" class="primary" name="decision" value="approve">Approve and continue to the manufacturer</button>
<button type="submit" class="secondary" name="decision" value="reject" formnovalidate>Reject</button>
</div>
</form>`;
  return renderPage({ title: `Consent for ${view.consumerName}`, body });
}
