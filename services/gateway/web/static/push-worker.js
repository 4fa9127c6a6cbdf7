// The page's service worker: shows a turn alert pushed by the notifier (services/notifier/webpush.py) and
// opens the game when it is tapped. Served at /push-worker.js so it may show alerts for every game page.
self.addEventListener("push", (event) => {
  let data = {};
  try { data = event.data ? event.data.json() : {}; } catch (e) { data = { body: event.data ? event.data.text() : "" }; }
  event.waitUntil(self.registration.showNotification(data.title || "Railpost", {
    body: data.body || "Something happened in one of your games.", tag: data.tag, data: { url: data.url || "/" },
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || "/";
  event.waitUntil(self.clients.matchAll({ type: "window" }).then((open) => {
    const same = open.find((c) => c.url.split("#")[0] === url);
    return same ? same.focus() : self.clients.openWindow(url);
  }));
});
