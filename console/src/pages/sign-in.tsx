// The API key is posted once and exchanged for an HttpOnly session cookie: the page never
// keeps the key (no storage, no URL), and forgets it as soon as the server answered.
import { useState } from "preact/hooks";
import { signIn, type Me } from "../api-routes.js";

export function SignInPage({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState("");
  const submit = (event: Event) => {
    event.preventDefault();
    signIn(key).then(
      (me) => (setKey(""), onSignedIn(me)),
      (reason: Error) => (setKey(""), setError(reason.message)),
    );
  };
  return (
    <main class="sign-in">
      <h1>fisk-ai console</h1>
      <form onSubmit={submit} autocomplete="off">
        <label for="api-key">API key</label>
        <input id="api-key" type="password" value={key} onInput={(event) => setKey(event.currentTarget.value)} />
        <button type="submit" disabled={key === ""}>
          Sign in
        </button>
        {error !== "" && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
