/**
 * The page test/e2e/client-recipes.test.ts loads in Chromium: both recipes and their documents on
 * `window.recipes`, so the test drives each library from inside a real browser (cookies, CORS,
 * fetch) the way a page's code would.
 */
import { createApolloClient, gatewayProblem as apolloProblem } from './apollo';
import { whatToDo } from './gateway-problem';
import * as documents from './operations';
import { createUrqlClient, gatewayProblem as urqlProblem } from './urql';

const recipes = { createApolloClient, apolloProblem, createUrqlClient, urqlProblem, documents, whatToDo };

declare global {
  interface Window {
    recipes: typeof recipes;
  }
}

window.recipes = recipes;
