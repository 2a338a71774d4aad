// The app's worker file, so that the bundler builds the worker (as the package README says).
import '@zeromem/embed-transformers/worker';
