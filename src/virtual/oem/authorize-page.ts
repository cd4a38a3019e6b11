import { html, renderPage } from '../../consent/index.ts';

export interface AuthorizeView {
  realmName: string;
  actionUrl: string;
  /** The OAuth request, carried through the form. */
  hidden: Record<string, string>;
  vin: string;
  username: string;
  items: { technicalName: string; name: string; checked: boolean }[];
  error: string | null;
}

/** The simulated manufacturer's login and consent page: user, password, VIN, one box per item. */
export function renderAuthorizePage(v: AuthorizeView): string {
  const body = html`<h1>${v.realmName}: sign in and share vehicle data</h1>
<p>Connected Vehicle Data Service asks to receive the data items below from your vehicle.
This is a simulated manufacturer: any non-empty user name and password sign you in.</p>
${v.error ? html`<p class="error" role="alert">${v.error}</p>` : ''}
<form method="post" action="${v.actionUrl}">
${Object.entries(v.hidden).map(([k, val]) => html`<input type="hidden" name="${k}" value="${val}">`)}
<label for="username">User name</label>
<input type="text" id="username" name="username" autocomplete="username" value="${v.username}" required>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<label for="vin">Vehicle identification number (VIN)</label>
<input type="text" id="vin" name="vin" value="${v.vin}" maxlength="17" spellcheck="false" required>
<fieldset>
<legend>Data items to share</legend>
${v.items.map(
  (i) => html`<label class="choice"><input type="checkbox" name="item" value="${i.technicalName}"${i.checked ? html` checked` : ''}> ${i.name} <span class="muted">(${i.technicalName})</span></label>`,
)}
</fieldset>
<div class="actions">
<button type="submit" class="primary" name="decision" value="allow">Allow</button>
<button type="submit" class="secondary" name="decision" value="deny" formnovalidate>Deny</button>
</div>
</form>`;
  return renderPage({ title: `${v.realmName}: sign in`, body });
}
