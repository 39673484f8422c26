// Preloaded (node -r) into a README example run by the package test: prints LISTENING once a server of the example
// listens, so the test waits on that line instead of knocking on the port.
const net = require('node:net');

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  this.once('listening', () => process.stdout.write('LISTENING\n'));
  return listen.apply(this, args);
};
