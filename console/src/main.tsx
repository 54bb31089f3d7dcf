// The console's shell: who is signed in, the navigation, and the page the URL's hash names.
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ApiProblem, setCsrfToken } from "./api.js";
import { me as whoAmI, signOut, type Me } from "./api-routes.js";
import { closeStoreEvents } from "./store-events.js";
import { hrefOf, useRoute, type Route } from "./router.js";
import { ApprovalsPage } from "./pages/approvals.js";
import { QueuePage } from "./pages/queue.js";
import { SessionPage } from "./pages/session.js";
import { SessionsPage } from "./pages/sessions.js";
import { SignInPage } from "./pages/sign-in.js";

const NAV: { route: Route; label: string }[] = [
  { route: { page: "sessions" }, label: "Sessions" },
  { route: { page: "approvals" }, label: "Approvals" },
  { route: { page: "queue" }, label: "Queue" },
];

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case "sessions":
      return <SessionsPage />;
    case "session":
      return <SessionPage key={route.id} id={route.id} />;
    case "approvals":
      return <ApprovalsPage />;
    case "queue":
      return <QueuePage />;
  }
}

function App() {
  const route = useRoute();
  const [me, setMe] = useState<Me | null | undefined>();
  const [error, setError] = useState("");
  const signedIn = (who: Me) => {
    setCsrfToken(who.csrf);
    setMe(who);
  };
  useEffect(() => {
    whoAmI().then(signedIn, (reason: Error) => (reason instanceof ApiProblem && reason.status === 401 ? setMe(null) : setError(reason.message)));
  }, []);
  if (error !== "")
    return (
      <p role="alert" class="error">
        {error}
      </p>
    );
  if (me === undefined) return <p>Loading…</p>;
  if (me === null) return <SignInPage onSignedIn={signedIn} />;
  const leave = () =>
    signOut().then(() => {
      closeStoreEvents();
      setMe(null);
    });
  return (
    <>
      <header>
        <nav aria-label="main">
          <span class="brand">fisk-ai</span>
          {NAV.map(({ route: target, label }) => (
            <a key={label} href={hrefOf(target)} aria-current={target.page === route.page ? "page" : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <span class="who">
          {me.name} ({me.tenant}){" "}
          {me.csrf !== "" && (
            <button type="button" onClick={leave}>
              Sign out
            </button>
          )}
        </span>
      </header>
      <main>
        <Page route={route} />
      </main>
    </>
  );
}

const root = document.getElementById("app");
if (root !== null) render(<App />, root);
